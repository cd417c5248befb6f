/**
 * `npm start` with and without an OTLP endpoint, as a child process: unset, no OpenTelemetry
 * package (not even the API) is resolved by our code; set, a turn's spans reach the collector on SIGTERM (the batch is
 * flushed before exit, well before the SDK's 5 s export delay).
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { startFakeOpenAI } from '../fakes/openai-server.js';
import { startOtlpCollector } from '../fakes/otlp-collector.js';
import { freePort } from '../helpers/free-port.js';

/** Starts src/main.ts, sends one /api/chat turn once it listens, then SIGTERM; resolves with its exit code and output. */
async function oneTurn(env: Record<string, string>): Promise<{ code: number | null; out: string; chat: unknown }> {
  const llm = await startFakeOpenAI();
  llm.script({ text: 'Traced hello.' });
  const port = await freePort();
  let chat: unknown;
  const result = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        OPENAI_API_KEY: 'sk-otel-test',
        OPENAI_BASE_URL: llm.url,
        PORT: String(port),
        PGLITE_MEMORY: '1',
        LOG_LEVEL: 'info',
        NODE_OPTIONS: '--import ./test/helpers/report-otel-imports.mjs',
        ...env,
      },
      cwd: process.cwd(),
    });
    let out = '';
    let sent = false;
    const onData = (d: Buffer) => {
      out += d.toString();
      if (sent || !out.includes('Switchboard listening')) return;
      sent = true;
      void (async () => {
        const res = await fetch(`http://127.0.0.1:${port}/api/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ message: 'hi' }),
        });
        chat = await res.json();
        child.kill('SIGTERM');
      })();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
  await llm.close();
  return { ...result, chat };
}

describe('npm start with OpenTelemetry', () => {
  it('loads no OpenTelemetry package without an endpoint', async () => {
    const { code, out, chat } = await oneTurn({});
    expect(chat).toMatchObject({ response: 'Traced hello.' });
    expect(out).not.toContain('otel-import:');
    expect(out).not.toContain('OpenTelemetry traces go to');
    expect(code).toBe(0);
  }, 120_000);

  it('exports the turn on SIGTERM: the batch is flushed before exit', async () => {
    const collector = await startOtlpCollector();
    try {
      const { code, out, chat } = await oneTurn({
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_SERVICE_NAME: 'switchboard-main-test',
      });
      expect(chat).toMatchObject({ response: 'Traced hello.' });
      expect(out).toContain('otel-import: api');
      expect(out).toContain('otel-import: sdk-trace');
      expect(out).toContain('otel-import: exporter-trace-otlp-proto');
      expect(out).not.toContain('otel-import: exporter-trace-otlp-http');
      expect(out).toContain(`OpenTelemetry traces go to ${collector.url} (http/protobuf)`);
      expect(code).toBe(0);
      const turn = collector.spans.find((s) => s.name === 'invoke_agent switchboard');
      expect(turn).toMatchObject({
        resource: { 'service.name': 'switchboard-main-test' },
        attributes: { 'switchboard.platform': 'http', 'switchboard.turn.outcome': 'ok' },
      });
      expect(collector.spans.filter((s) => s.traceId === turn!.traceId).map((s) => s.name)).toContain(
        'chat gpt-4o-mini',
      );
      // The HTTP API's log lines of the turn carry its trace id.
      const turnLine = out.split('\n').find((l) => l.includes('"msg":"turn"'));
      expect(JSON.parse(turnLine!)).toMatchObject({ trace_id: turn!.traceId, span_id: turn!.spanId });
    } finally {
      await collector.close();
    }
  }, 120_000);
});
