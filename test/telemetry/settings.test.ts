/** The standard OTEL_* variables as startTracing reads them. */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { samplerFromEnv } from '../../src/telemetry/sdk.js';
import { startTracing, tracesUrl } from '../../src/telemetry/start.js';
import { providerNameFor, tracingOn } from '../../src/telemetry/tracing.js';
import { captureLogs } from '../helpers/harness.js';

describe('OpenTelemetry settings', () => {
  it('builds the traces URL as the exporter specification does', () => {
    expect(tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe('http://collector:4318/v1/traces');
    expect(tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toBe(
      'http://collector:4318/v1/traces',
    );
    // The signal's own endpoint is used as given, and wins.
    expect(
      tracesUrl({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://api.honeycomb.io/v1/traces',
      }),
    ).toBe('https://api.honeycomb.io/v1/traces');
    expect(tracesUrl({})).toBeUndefined();
  });

  it('reads OTEL_TRACES_SAMPLER and its argument, warning about what it cannot use', () => {
    const warnings: string[] = [];
    const warn = (m: string) => void warnings.push(m);
    expect(samplerFromEnv(undefined, undefined, warn).toString()).toMatch(/ParentBased\{root=AlwaysOnSampler/);
    expect(samplerFromEnv('always_off', undefined, warn).toString()).toBe('AlwaysOffSampler');
    expect(samplerFromEnv('traceidratio', '0.25', warn).toString()).toBe('TraceIdRatioBased{0.25}');
    expect(samplerFromEnv('parentbased_traceidratio', '0.1', warn).toString()).toMatch(
      /ParentBased\{root=TraceIdRatioBased\{0.1\}/,
    );
    expect(warnings).toEqual([]);
    expect(samplerFromEnv('traceidratio', '7', warn).toString()).toBe('TraceIdRatioBased{1}');
    expect(samplerFromEnv('jaeger_remote', undefined, warn).toString()).toMatch(/ParentBased/);
    expect(warnings).toEqual([
      'OTEL_TRACES_SAMPLER_ARG "7" is not a ratio between 0 and 1; using 1',
      'OTEL_TRACES_SAMPLER "jaeger_remote" is not supported; using parentbased_always_on',
    ]);
  });

  it('refuses gRPC (not shipped) with a warning and stays off; OTEL_TRACES_EXPORTER=none is off too', async () => {
    const { log, logs } = captureLogs('info');
    const grpc = await startTracing(
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      log,
    );
    expect(grpc).toBeUndefined();
    expect(logs.lines.at(-1)).toMatchObject({ level: 40, code: 'otel_config' });
    expect(String(logs.lines.at(-1)!.msg)).toMatch(/"grpc" is not supported.*tracing is off/);
    expect(
      await startTracing(
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' },
        silentLogger(),
      ),
    ).toBeUndefined();
    expect(tracingOn()).toBe(false);
  });

  it('names the GenAI provider from the LLM endpoint', () => {
    expect(providerNameFor(undefined)).toBe('openai');
    expect(providerNameFor('https://api.openai.com/v1')).toBe('openai');
    expect(providerNameFor('https://generativelanguage.googleapis.com/v1beta/openai/')).toBe('gcp.gemini');
    expect(providerNameFor('https://api.deepseek.com')).toBe('deepseek');
    expect(providerNameFor('https://my-res.openai.azure.com/openai/v1')).toBe('azure.ai.openai');
    expect(providerNameFor('http://127.0.0.1:11434/v1')).toBe('openai');
  });
});
