import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../src/adapters/http/app.js';
import { startHttpServer, type RunningServer } from '../../src/adapters/http/server.js';
import { parseArguments } from '../../src/agent/registry.js';
import { weatherTool } from '../helpers/test-tools.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { unfence } from '../helpers/fence.js';

/** `{"city":"Oslo","extra":[[[…1…]]]}`, `depth` arrays deep: JSON.parse builds it without trouble. */
const deepArguments = (depth: number) => `{"city":"Oslo","extra":${'['.repeat(depth)}1${']'.repeat(depth)}}`;

let h: Harness;
let server: RunningServer;

beforeAll(async () => {
  h = await startHarness({ tools: [weatherTool] });
  server = await startHttpServer(createHttpApp({ agent: h.sb.agent, log: h.sb.log }), 0, '127.0.0.1');
});
afterAll(async () => {
  await server.close();
  await h.close();
});
beforeEach(() => h.llm.reset());

describe('tool arguments nested too deep', () => {
  it('are a fixable validation error, checked before anything walks them (no recursion)', () => {
    for (const raw of [
      deepArguments(20_000),
      `{"city":"Oslo","extra":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`,
    ]) {
      const parsed = parseArguments(raw, weatherTool.input);
      expect(parsed.ok).toBe(false);
      expect(!parsed.ok && parsed.error).toMatch(/^Invalid arguments: nested deeper than 64 levels/);
    }
    // 64 levels is the limit, not a step below it: a prototype key that deep is still found.
    const atLimit = parseArguments(
      `{"city":"Oslo","extra":${'['.repeat(62)}{"__proto__":1}${']'.repeat(62)}}`,
      weatherTool.input,
    );
    expect(!atLimit.ok && atLimit.error).toMatch(/extra(\[0\]){62}\.__proto__: this key name is not allowed/);
  });

  it('over HTTP: the model gets the error and answers, the caller gets 200, not a 500', async () => {
    h.llm.script(
      { toolCalls: [{ name: 'get_weather', arguments: deepArguments(20_000) }] },
      { text: 'I could not look that up; which city do you mean?' },
    );
    const res = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Weather in Oslo?' }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { response: string };
    expect(body.response).toBe('I could not look that up; which city do you mean?');
    const tool = (h.llm.requestsTo('/chat/completions')[1]!.body.messages as { role: string; content: string }[]).find(
      (m) => m.role === 'tool',
    );
    expect(unfence(tool?.content)).toMatch(/nested deeper than 64 levels/);
  });
});
