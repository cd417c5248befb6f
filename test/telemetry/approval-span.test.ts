/**
 * Issue 43, "a span per wait": every decided approval is an `approval wait` span from the ask to
 * the decision, with its outcome, tool and wait, under the turn that decided it (the click's, or
 * the expiry's). Spans are caught by the SDK's in-memory exporter, through `startTracing`.
 */
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TurnEvent } from '../../src/contract/turn.js';
import type { AdminDataPort } from '../../src/data/index.js';
import { startTracing, type Tracing } from '../../src/telemetry/start.js';
import { openPgliteTestPort } from '../helpers/db.js';
import { collect, message, startHarness, type Harness } from '../helpers/harness.js';
import { createNoteTool } from '../helpers/note-tool.js';

const { tool: noteTool, written } = createNoteTool();
const exporter = new InMemorySpanExporter();
let tracing: Tracing | undefined;
let data: AdminDataPort;
let h: Harness;
let n = 0;

beforeAll(async () => {
  data = await openPgliteTestPort({ seedDemo: false });
  h = await startHarness({ tools: [noteTool], data });
  tracing = await startTracing({ OPENAI_BASE_URL: h.config.OPENAI_BASE_URL }, h.sb.log, { exporter });
  if (!tracing) throw new Error('tracing did not start');
});
afterAll(async () => {
  await tracing?.shutdown();
  await h?.close();
  await data?.close();
});
beforeEach(() => {
  exporter.reset();
  written.length = 0;
  h.llm.reset();
});

/** Asks for a note in a thread of its own; returns the approval's id and the thread. */
async function pause(): Promise<{ id: string; threadId: string }> {
  const threadId = `span-${++n}`;
  h.llm.script({ toolCalls: [{ name: 'write_note', arguments: { text: `note ${n}` } }] });
  const events = await collect(h.sb.agent.handle(message('note this', { threadId, userId: 'u-span' })));
  const asked = events.find(
    (e): e is Extract<TurnEvent, { type: 'approval_required' }> => e.type === 'approval_required',
  );
  return { id: asked!.approvals[0]!.id, threadId };
}

async function waits(): Promise<ReadableSpan[]> {
  await tracing!.flush();
  return exporter.getFinishedSpans().filter((s) => s.name === 'approval wait');
}

describe('the approval wait span', () => {
  it('approved: outcome, tool and wait, decided by a person, under the deciding turn', async () => {
    const { id, threadId } = await pause();
    await new Promise((r) => setTimeout(r, 120));
    h.llm.script({ text: 'Noted.' });
    await collect(
      h.sb.agent.handle(message('', { threadId, userId: 'u-span', action: { id: 'approval.approve', value: id } })),
    );
    expect(written).toEqual([`note ${n}`]);
    const [span, ...more] = await waits();
    expect(more).toEqual([]);
    expect(span!.attributes).toMatchObject({
      'switchboard.tool': 'write_note',
      'switchboard.approval.outcome': 'approved',
      'switchboard.approval.decided_by_person': true,
    });
    expect(span!.attributes['switchboard.approval.wait_ms']).toBeGreaterThanOrEqual(100);
    // It covers the wait: from the ask to the click.
    const ms = (t: [number, number]) => t[0] * 1000 + t[1] / 1e6;
    expect(ms(span!.endTime) - ms(span!.startTime)).toBeGreaterThanOrEqual(100);
    const turn = exporter.getFinishedSpans().find((s) => s.spanContext().spanId === span!.parentSpanContext?.spanId);
    expect(turn?.name).toMatch(/^invoke_agent/);
  });

  it('denied and expired: their outcomes; an expiry is decided by no one', async () => {
    const denied = await pause();
    h.llm.script({ text: 'Not noted.' });
    await collect(
      h.sb.agent.handle(
        message('', { threadId: denied.threadId, userId: 'u-span', action: { id: 'approval.deny', value: denied.id } }),
      ),
    );
    const expired = await pause();
    await data.transport.sql!.query(
      `update public.tool_approvals set expires_at = now() - interval '1 second' where id = $1`,
      [expired.id],
    );
    h.llm.script({ text: 'It expired.' });
    await collect(
      h.sb.agent.handle(
        message('', {
          threadId: expired.threadId,
          userId: 'u-span',
          action: { id: 'approval.expire', value: expired.id },
        }),
      ),
    );
    const spans = await waits();
    expect(
      spans.map((s) => [
        s.attributes['switchboard.approval.outcome'],
        s.attributes['switchboard.approval.decided_by_person'],
      ]),
    ).toEqual([
      ['denied', true],
      ['expired', false],
    ]);
    expect(written).toEqual([]);
  });
});
