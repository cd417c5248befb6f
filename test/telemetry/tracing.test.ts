/**
 * OpenTelemetry traces of a real turn: a Slack mention over the Events API (fake Slack), the
 * inbox, the agent with a scripted tool call and answer (fake OpenAI), exported over OTLP/HTTP to
 * a loopback collector that decodes both JSON and protobuf.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/contract/tool.js';
import { startTracing, type Tracing } from '../../src/telemetry/start.js';
import { currentTraceId, tracingOn } from '../../src/telemetry/tracing.js';
import { startOtlpCollector, type CollectedSpan, type OtlpCollector } from '../fakes/otlp-collector.js';
import { testTools } from '../helpers/test-tools.js';
import { turnListRow } from '../../src/data/rows.js';
import { isAdminPort } from '../../src/data/index.js';
import { eventBody, mention, postEvent, sign, startSlackRig, type SlackRig } from '../adapters/slack/setup.js';

// OTLP span kinds and status codes as they go on the wire.
const KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 };
const STATUS_ERROR = 2;

/** The attributes that carry message content under the GenAI conventions. */
const CONTENT_KEYS = /^gen_ai\.((input|output)\.messages|system_instructions|tool\.call\.(arguments|result))$/;

const SECRET_QUESTION = 'Is it raining in Reykjavik-7741 today?';
const SECRET_ANSWER = 'Yes: 18 degrees and rain in Reykjavik-7741.';

/** What `currentTraceId()` said inside a turn (the admin console links a turn to its trace with it). */
const seenTraceIds: (string | undefined)[] = [];
const traceProbe = defineTool({
  name: 'trace_probe',
  title: 'Probing the trace',
  description: 'Reports nothing useful.',
  input: z.object({}),
  async run() {
    seenTraceIds.push(currentTraceId());
    return { content: 'probed' };
  },
});

let rig: SlackRig;
let collector: OtlpCollector;
let tracing: Tracing | undefined;

beforeAll(async () => {
  collector = await startOtlpCollector();
  rig = await startSlackRig({ mode: 'http', tools: [...testTools, traceProbe] });
});
afterEach(async () => {
  await tracing?.shutdown();
  tracing = undefined;
  vi.unstubAllEnvs();
});
afterAll(async () => {
  await rig.close();
  await collector.close();
});

async function trace(env: Record<string, string>): Promise<Tracing> {
  vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', collector.url);
  for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
  const started = await startTracing({ ...process.env, OPENAI_BASE_URL: rig.h.config.OPENAI_BASE_URL }, rig.h.sb.log);
  if (!started) throw new Error('tracing did not start');
  tracing = started;
  return started;
}

/** One tool-using turn through Slack; returns the spans of its trace. */
async function toolTurn(t: Tracing): Promise<{ spans: CollectedSpan[]; turn: CollectedSpan }> {
  rig.llm.script(
    { toolCalls: [{ id: 'call_weather_1', name: 'get_weather', arguments: { city: 'Reykjavik-7741' } }] },
    { text: SECRET_ANSWER, usage: { prompt_tokens: 120, completion_tokens: 14 } },
  );
  const before = rig.deliveredCount();
  const seen = collector.spans.length;
  const res = await postEvent(rig.eventsUrl, eventBody(mention(SECRET_QUESTION)), sign());
  expect(res.status).toBe(200);
  await rig.delivered(before + 1);
  await t.flush();
  const fresh = collector.spans.slice(seen);
  const turns = fresh.filter((s) => s.name === 'invoke_agent switchboard');
  expect(turns).toHaveLength(1);
  const turn = turns[0]!;
  return { spans: fresh.filter((s) => s.traceId === turn.traceId), turn };
}

const childrenOf = (spans: CollectedSpan[], parent: CollectedSpan) =>
  spans.filter((s) => s.parentSpanId === parent.spanId);

describe('traces of a tool-using turn', () => {
  it('are off without an endpoint, and with OTEL_SDK_DISABLED=true: nothing is loaded or sent', async () => {
    expect(await startTracing({}, rig.h.sb.log)).toBeUndefined();
    expect(
      await startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SDK_DISABLED: 'true' }, rig.h.sb.log),
    ).toBeUndefined();
    expect(tracingOn()).toBe(false);
    expect(currentTraceId()).toBeUndefined();
    rig.llm.script({ text: 'No trace.' });
    const before = rig.deliveredCount();
    await postEvent(rig.eventsUrl, eventBody(mention('untraced')), sign());
    await rig.delivered(before + 1);
    expect(collector.spans).toHaveLength(0);
    const turnLine = rig.h.logs.lines.filter((l) => l.msg === 'turn').at(-1)!;
    expect(turnLine).not.toHaveProperty('trace_id');
  });

  it('export one trace over OTLP/HTTP protobuf: the turn, its chat and tool spans, the inbox and data calls; no message text', async () => {
    const t = await trace({});
    const { spans, turn } = await toolTurn(t);
    expect(new Set(spans.map((s) => s.encoding))).toEqual(new Set(['protobuf']));
    expect(collector.contentTypes.at(-1)).toBe('application/x-protobuf');

    // The trace starts where Slack's event was recorded; the run (and its wait) continue it.
    const add = spans.find((s) => s.name === 'inbox add')!;
    expect(add).toMatchObject({
      kind: KIND.PRODUCER,
      parentSpanId: '',
      attributes: { 'switchboard.platform': 'slack' },
    });
    expect(add.attributes['switchboard.inbox.result']).toBe('added');
    const wait = spans.find((s) => s.name === 'inbox wait')!;
    expect(wait).toMatchObject({ kind: KIND.CONSUMER, parentSpanId: add.spanId });
    expect(turn.parentSpanId).toBe(add.spanId);
    expect(turn.resource['service.name']).toBe('switchboard');

    expect(turn.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'openai',
      'gen_ai.agent.name': 'switchboard',
      'gen_ai.request.model': 'gpt-test',
      'switchboard.platform': 'slack',
      'switchboard.turn.outcome': 'ok',
      'switchboard.inbox.attempt': 1,
      'gen_ai.usage.input_tokens': expect.any(Number) as number,
    });
    expect(turn.attributes['switchboard.tenant.id']).toMatch(/^[0-9a-f-]{36}$/);
    // The thread key is hashed: no channel, thread or user id in the conversation id.
    expect(turn.attributes['gen_ai.conversation.id']).toMatch(/^[0-9a-f]{32}$/);

    const chats = childrenOf(spans, turn).filter((s) => s.name === 'chat gpt-test');
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat.kind).toBe(KIND.CLIENT);
      expect(chat.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-test',
        'server.address': '127.0.0.1',
      });
      expect(chat.attributes['gen_ai.response.model']).toBe('gpt-test');
      expect(chat.events.map((e) => e.name)).toContain('gen_ai.first_chunk');
      expect(chat.attributes['gen_ai.response.time_to_first_chunk']).toBeGreaterThanOrEqual(0);
    }
    expect(chats.map((c) => c.attributes['gen_ai.response.finish_reasons'])).toEqual([['tool_calls'], ['stop']]);
    // The same (hashed) conversation id on the model calls as on the turn.
    expect(chats.map((c) => c.attributes['gen_ai.conversation.id'])).toEqual([
      turn.attributes['gen_ai.conversation.id'],
      turn.attributes['gen_ai.conversation.id'],
    ]);
    expect(chats[1]!.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 120, 'gen_ai.usage.output_tokens': 14 });

    const [tool] = childrenOf(spans, turn).filter((s) => s.name === 'execute_tool get_weather');
    expect(tool).toBeDefined();
    expect(tool!.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_weather',
      'gen_ai.tool.call.id': 'call_weather_1',
      'switchboard.tool.outcome': 'ok',
      'gen_ai.conversation.id': turn.attributes['gen_ai.conversation.id'],
    });
    // The tool ran between the two model calls.
    expect(tool!.startMs).toBeGreaterThanOrEqual(chats[0]!.endMs - 1);
    expect(tool!.endMs).toBeLessThanOrEqual(chats[1]!.startMs + 1);

    // Data-port calls of the turn (tenant lookup, the usage ledger) nest under it as client spans.
    const data = spans.filter((s) => s.attributes['db.system.name'] === 'postgresql');
    expect(data.length).toBeGreaterThan(0);
    expect(
      data.every((s) => s.kind === KIND.CLIENT && typeof s.attributes['db.stored_procedure.name'] === 'string'),
    ).toBe(true);
    expect(data.some((s) => s.parentSpanId === turn.spanId)).toBe(true);

    // Content is opt-in: neither the question, the answer nor the tool's arguments left the process.
    const wire = collector.raw();
    expect(wire).not.toContain('Reykjavik-7741');
    for (const s of spans) {
      expect(Object.keys(s.attributes).filter((k) => CONTENT_KEYS.test(k))).toEqual([]);
    }

    // Every log line of the turn carries its trace id; the agent's lines carry the turn span's id.
    const turnLine = rig.h.logs.lines.filter((l) => l.msg === 'turn').at(-1)!;
    expect(turnLine).toMatchObject({ trace_id: turn.traceId, span_id: turn.spanId });
    const delivered = rig.h.logs.lines.filter((l) => l.msg === 'slack turn delivered').at(-1)!;
    expect(delivered.trace_id).toBe(turn.traceId);

    // The turn's record for the operator console names the same trace (its link to the trace).
    const port = rig.h.sb.data;
    if (!isAdminPort(port)) throw new Error('the rig data port has no admin functions');
    const [record] = await port.admin('list_turns', { limit: 1 }, turnListRow);
    expect(record?.trace_id).toBe(turn.traceId);
  });

  it('export over OTLP/HTTP JSON too, and record prompts, completions and tool arguments/results when asked', async () => {
    const t = await trace({
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
      OTEL_SERVICE_NAME: 'switchboard-test',
    });
    const { spans, turn } = await toolTurn(t);
    expect(new Set(spans.map((s) => s.encoding))).toEqual(new Set(['json']));
    expect(collector.contentTypes.at(-1)).toBe('application/json');
    expect(turn.resource['service.name']).toBe('switchboard-test');

    const input = JSON.parse(String(turn.attributes['gen_ai.input.messages'])) as unknown;
    expect(input).toEqual([{ role: 'user', parts: [{ type: 'text', content: SECRET_QUESTION }] }]);
    const output = JSON.parse(String(turn.attributes['gen_ai.output.messages'])) as unknown;
    expect(output).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: SECRET_ANSWER }], finish_reason: 'stop' },
    ]);

    const chats = childrenOf(spans, turn).filter((s) => s.name === 'chat gpt-test');
    const first = JSON.parse(String(chats[0]!.attributes['gen_ai.output.messages'])) as unknown;
    expect(first).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'tool_call', id: 'call_weather_1', name: 'get_weather', arguments: { city: 'Reykjavik-7741' } },
        ],
        finish_reason: 'tool_calls',
      },
    ]);
    expect(String(chats[0]!.attributes['gen_ai.system_instructions'])).toContain('"type":"text"');
    const secondInput = JSON.parse(String(chats[1]!.attributes['gen_ai.input.messages'])) as {
      role: string;
      parts: { type: string }[];
    }[];
    expect(secondInput.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(secondInput[2]!.parts[0]).toMatchObject({ type: 'tool_call_response', id: 'call_weather_1' });

    const [tool] = childrenOf(spans, turn).filter((s) => s.name === 'execute_tool get_weather');
    expect(JSON.parse(String(tool!.attributes['gen_ai.tool.call.arguments']))).toEqual({ city: 'Reykjavik-7741' });
    expect(String(tool!.attributes['gen_ai.tool.call.result'])).toContain('Reykjavik-7741: 18°C, light rain');
  });

  it('tell code inside a turn its trace id (currentTraceId), and nothing with tracing off', async () => {
    const probe = async () => {
      rig.llm.script({ toolCalls: [{ name: 'trace_probe', arguments: {} }] }, { text: 'Probed.' });
      const before = rig.deliveredCount();
      await postEvent(rig.eventsUrl, eventBody(mention('probe')), sign());
      await rig.delivered(before + 1);
    };
    await probe();
    expect(seenTraceIds.at(-1)).toBeUndefined();
    const t = await trace({});
    const seen = collector.spans.length;
    await probe();
    await t.flush();
    const turn = collector.spans.slice(seen).find((s) => s.name === 'invoke_agent switchboard')!;
    expect(seenTraceIds.at(-1)).toBe(turn.traceId);
  });

  it('mark a failed tool call and a failed turn with our error code only, never a stack or a secret', async () => {
    const t = await trace({});
    rig.llm.script({ toolCalls: [{ name: 'broken_lookup', arguments: {} }] }, { status: 500 });
    const before = rig.deliveredCount();
    const seen = collector.spans.length;
    await postEvent(rig.eventsUrl, eventBody(mention('break it')), sign());
    await rig.delivered(before + 1);
    await t.flush();
    const spans = collector.spans.slice(seen);
    const tool = spans.find((s) => s.name === 'execute_tool broken_lookup')!;
    expect(tool.status).toEqual({ code: STATUS_ERROR, message: 'tool_failed' });
    expect(tool.attributes['error.type']).toBe('tool_failed');
    const turn = spans.find((s) => s.name === 'invoke_agent switchboard')!;
    expect(turn.status).toEqual({ code: STATUS_ERROR, message: 'llm_unavailable' });
    expect(turn.attributes['switchboard.turn.outcome']).toBe('llm_unavailable');
    const failedChat = spans.filter((s) => s.name === 'chat gpt-test' && s.status.code === STATUS_ERROR);
    expect(failedChat.map((s) => s.status.message)).toEqual(['llm_server']);
    const wire = collector.raw();
    expect(wire).not.toContain('hunter2');
    expect(wire).not.toContain('ECONNREFUSED');
    expect(wire).not.toMatch(/at .*\.ts:\d+/);
  });
});
