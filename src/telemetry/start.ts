import type { Logger } from './logger.js';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { loadApi, providerNameFor, setTracingState } from './tracing.js';

/** What `startTracing` reads: the standard OpenTelemetry variables (and the LLM endpoint, for the provider name). */
export type TracingEnv = Partial<Record<string, string>>;

export interface Tracing {
  /** Exports what is batched now (tests; shutdown does it too). */
  flush(): Promise<void>;
  /** Flushes and stops; every helper goes back to doing nothing. */
  shutdown(): Promise<void>;
}

/**
 * The traces URL as the OTLP exporter specification builds it: the signal's own endpoint as
 * given, else the base endpoint with `/v1/traces` appended. (Headers, timeout and compression the
 * exporter reads from the process environment itself.)
 */
export function tracesUrl(env: TracingEnv): string | undefined {
  const own = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (own) return own;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined;
}

/** How long shutdown waits for the last spans to be exported. */
const SHUTDOWN_FLUSH_MS = 3_000;

const truthy = (v: string | undefined) => v?.trim().toLowerCase() === 'true';

/**
 * Starts OpenTelemetry tracing when an OTLP endpoint is configured
 * (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT) and OTEL_SDK_DISABLED is
 * not `true`; otherwise returns undefined and loads nothing. Never throws: telemetry that cannot
 * start is a warning, not a reason for the bot to stay down.
 */
export async function startTracing(
  env: TracingEnv,
  log: Logger,
  opts: { serviceVersion?: string; exporter?: SpanExporter } = {},
): Promise<Tracing | undefined> {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (truthy(env.OTEL_SDK_DISABLED) || (!endpoint && !opts.exporter)) return undefined;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return undefined;
  const protocol = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ||
    env.OTEL_EXPORTER_OTLP_PROTOCOL ||
    'http/protobuf'
  ).trim();
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    log.warn(
      { code: 'otel_config', protocol },
      `OTEL_EXPORTER_OTLP_PROTOCOL "${protocol}" is not supported (use http/protobuf or http/json); tracing is off`,
    );
    return undefined;
  }
  try {
    await loadApi();
    const { samplerFromEnv, startSdk } = await import('./sdk.js');
    const warn = (msg: string) => log.warn({ code: 'otel_config' }, msg);
    const sdk = await startSdk(
      {
        protocol,
        url: tracesUrl(env),
        sampler: samplerFromEnv(env.OTEL_TRACES_SAMPLER, env.OTEL_TRACES_SAMPLER_ARG, warn),
        serviceVersion: opts.serviceVersion ?? '0.1.0',
        exporter: opts.exporter,
      },
      log,
    );
    const captureContent = truthy(env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT);
    setTracingState({ on: true, captureContent, providerName: providerNameFor(env.OPENAI_BASE_URL) });
    log.info(
      { tracing: endpoint ?? 'custom exporter', protocol, messageContent: captureContent },
      `OpenTelemetry traces go to ${endpoint ?? 'a custom exporter'} (${protocol})${captureContent ? ', with message content' : ''}`,
    );
    return {
      flush: () => sdk.forceFlush(),
      async shutdown() {
        setTracingState({ on: false });
        // Bounded: an unreachable collector must not hold the exit past the supervisor's patience.
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), SHUTDOWN_FLUSH_MS)));
        const done = await Promise.race([sdk.shutdown().then(() => 'done' as const), late]).catch((err: unknown) => {
          log.warn({ err, code: 'otel_export' }, 'OpenTelemetry did not shut down cleanly; the last spans may be lost');
          return 'failed' as const;
        });
        clearTimeout(timer);
        if (done === 'late')
          log.warn(
            { code: 'otel_export' },
            `OpenTelemetry could not export its last spans within ${SHUTDOWN_FLUSH_MS} ms; they are dropped`,
          );
      },
    };
  } catch (err) {
    log.warn({ err, code: 'otel_config' }, 'OpenTelemetry could not start; tracing is off');
    return undefined;
  }
}
