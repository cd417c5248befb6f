/** The standard OTEL_* variables as startTracing reads them. */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/telemetry/logger.js';
import { diagText, samplerFromEnv } from '../../src/telemetry/sdk.js';
import { startTracing, tracesUrl } from '../../src/telemetry/start.js';
import { providerNameFor, startSpan, tracingOn } from '../../src/telemetry/tracing.js';
import { freePort } from '../helpers/free-port.js';
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

  it('says what the SDK complains about in one line: no stack, nothing secret-like', () => {
    const err = new Error('connect ECONNREFUSED 10.0.0.1:4318 token=abc123');
    const json = JSON.stringify({ stack: err.stack, message: err.message, code: 'ECONNREFUSED' });
    expect(diagText(json)).toBe('connect ECONNREFUSED 10.0.0.1:4318 token=[redacted]');
    expect(diagText('Export failed\n    at Foo (x.js:1:2)')).toBe('Export failed');
  });

  it('does not hold shutdown hostage to an unreachable collector: the last spans are dropped with a warning', async () => {
    const { log, logs } = captureLogs('info');
    const port = await freePort(); // nobody listens there
    const tracing = await startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` }, log);
    expect(tracingOn()).toBe(true);
    startSpan('lost').end();
    await tracing!.shutdown();
    expect(tracingOn()).toBe(false);
    const warnings = logs.lines.filter((l) => l.level === 40);
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings.every((l) => l.code === 'otel_export')).toBe(true);
    expect(logs.text()).not.toMatch(/ at \S+ \(/); // a stack frame
    expect(logs.text()).not.toContain('"stack"');
  }, 10_000);
});
