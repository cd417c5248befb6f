import { context, diag, DiagLogLevel, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { loggingErrorHandler, setGlobalErrorHandler, W3CTraceContextPropagator } from '@opentelemetry/core';
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
import { scrubSecrets, type Logger } from './logger.js';

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

/** How often, at most, a failing export is said in the log (a collector that is down fails every batch). */
const EXPORT_WARNING_EVERY_MS = 60_000;

/** The one-line text of an SDK complaint: its message, without a stack, scrubbed of anything secret-like. */
export function diagText(message: string): string {
  let text = message;
  if (text.startsWith('{')) {
    try {
      const parsed = JSON.parse(text) as { message?: unknown };
      if (typeof parsed.message === 'string') text = parsed.message;
    } catch {
      // not JSON after all: keep it as it is
    }
  }
  return scrubSecrets(text.split('\n', 1)[0]!.slice(0, 300));
}

export async function startSdk(opts: SdkOptions, log: Logger): Promise<RunningSdk> {
  // The SDK's complaints (an unreachable collector, a rejected export) go to our log as warnings:
  // one line, no stack, at most once a minute with the count of those not said.
  let lastWarning = 0;
  let unsaid = 0;
  const warn = (text: string) => {
    const now = Date.now();
    if (now - lastWarning < EXPORT_WARNING_EVERY_MS) return void unsaid++;
    log.warn(
      { code: 'otel_export', ...(unsaid ? { suppressed: unsaid } : {}) },
      `OpenTelemetry: ${text} (spans are dropped; turns are not affected)`,
    );
    lastWarning = now;
    unsaid = 0;
  };
  setGlobalErrorHandler((err) => warn(diagText(err instanceof Error ? err.message : String(err))));
  diag.setLogger(
    {
      error: (message) => warn(diagText(message)),
      warn: (message) => warn(diagText(message)),
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
      setGlobalErrorHandler(loggingErrorHandler());
    },
  };
}
