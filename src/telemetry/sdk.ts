import { context, diag, DiagLogLevel, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import type { Logger } from '../logger.js';

/**
 * The OpenTelemetry SDK: imported (dynamically, by `start.ts`) only when an OTLP endpoint is
 * configured, so a process without tracing never loads it. The exporters read the standard
 * OTEL_EXPORTER_OTLP_* variables themselves (endpoint, headers, timeout, compression).
 */

export interface SdkOptions {
  protocol: 'http/protobuf' | 'http/json';
  /** The traces URL (from OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, or OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces). */
  url?: string;
  sampler: Sampler;
  serviceVersion: string;
  /** Replaces the OTLP exporter (benchmarks measure the SDK without a network peer). */
  exporter?: SpanExporter;
}

export interface RunningSdk {
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG as the SDK specification defines them. */
export function samplerFromEnv(
  name: string | undefined,
  arg: string | undefined,
  warn: (msg: string) => void,
): Sampler {
  const ratio = () => {
    const n = arg === undefined || arg === '' ? 1 : Number(arg);
    if (Number.isFinite(n) && n >= 0 && n <= 1) return n;
    warn(`OTEL_TRACES_SAMPLER_ARG "${arg}" is not a ratio between 0 and 1; using 1`);
    return 1;
  };
  switch ((name ?? 'parentbased_always_on').trim().toLowerCase()) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio());
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) });
    case 'parentbased_always_on':
    case '':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    default:
      warn(`OTEL_TRACES_SAMPLER "${name}" is not supported; using parentbased_always_on`);
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

export async function startSdk(opts: SdkOptions, log: Logger): Promise<RunningSdk> {
  // The SDK's own complaints (an unreachable collector, a rejected export) go to our log as warnings.
  diag.setLogger(
    {
      error: (message) => log.warn({ code: 'otel_export' }, `OpenTelemetry: ${message}`),
      warn: (message) => log.warn({ code: 'otel_export' }, `OpenTelemetry: ${message}`),
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
  const exporter =
    opts.exporter ??
    (opts.protocol === 'http/json'
      ? new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter({ url: opts.url })
      : new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter({ url: opts.url }));
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'switchboard', 'service.version': opts.serviceVersion }))
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over our defaults.
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new TracerProvider({
    resource,
    sampler: opts.sampler,
    spanProcessors: [new BatchSpanProcessor({ exporter })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return {
    forceFlush: () => provider.forceFlush(),
    async shutdown() {
      // Flushes the spans still batched, then lets go of the globals (tests start it again).
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
      diag.disable();
    },
  };
}
