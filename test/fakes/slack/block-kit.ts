/**
 * Checks Block Kit payloads against Slack's Block Kit JSON Schema (test/fixtures/slack/
 * block-kit.schema.json, draft 2020-12) plus the message-wide rules the schema leaves out:
 * at most 50 blocks, one table, 12,000 markdown characters in all.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FakeSlack } from './web-api.js';

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const schema = JSON.parse(
  readFileSync(new URL('../../fixtures/slack/block-kit.schema.json', import.meta.url), 'utf8'),
) as object;
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
const validate = ajv.compile(schema);

/** Problems with one message's blocks; empty when valid. `extraMarkdown`: streamed text in the same message. */
export function blockKitProblems(blocks: unknown, extraMarkdown = 0): string[] {
  if (!Array.isArray(blocks)) return ['blocks is not an array'];
  const problems: string[] = [];
  if (!validate(blocks)) {
    for (const e of validate.errors ?? []) problems.push(`${e.instancePath || '/'} ${e.message ?? 'invalid'}`);
  }
  if (blocks.length > 50) problems.push(`${blocks.length} blocks (max 50 per message)`);
  const typed = blocks as { type?: string; text?: unknown }[];
  const tables = typed.filter((b) => b.type === 'table').length;
  if (tables > 1) problems.push(`${tables} tables (max 1 per message)`);
  const markdown =
    extraMarkdown +
    typed.reduce((n, b) => n + (b.type === 'markdown' && typeof b.text === 'string' ? b.text.length : 0), 0);
  if (markdown > 12_000) problems.push(`${markdown} markdown characters (max 12,000 per message)`);
  return problems;
}

/** Every blocks payload the fake received, with where it came from. */
export function outgoingBlockPayloads(slack: FakeSlack): { source: string; blocks: unknown; extraMarkdown: number }[] {
  const out: { source: string; blocks: unknown; extraMarkdown: number }[] = [];
  slack.calls.forEach((call, i) => {
    const source = `#${i} ${call.method}`;
    if (call.args.blocks !== undefined) {
      const streamed =
        call.method === 'chat.stopStream'
          ? streamedMarkdown(slack, String(call.args.channel), String(call.args.ts))
          : 0;
      out.push({ source, blocks: call.args.blocks, extraMarkdown: streamed });
    }
    for (const chunk of (call.args.chunks as { type?: string; blocks?: unknown }[] | undefined) ?? []) {
      if (chunk.type === 'blocks') out.push({ source: `${source} chunk`, blocks: chunk.blocks, extraMarkdown: 0 });
    }
  });
  slack.responses.forEach((r, i) => {
    if (r.body.blocks !== undefined) out.push({ source: `response #${i}`, blocks: r.body.blocks, extraMarkdown: 0 });
  });
  return out;
}

/** All problems across everything the fake was sent; `[]` when every payload is valid. */
export function invalidBlockPayloads(slack: FakeSlack): string[] {
  return outgoingBlockPayloads(slack).flatMap((p) =>
    blockKitProblems(p.blocks, p.extraMarkdown).map((problem) => `${p.source}: ${problem}`),
  );
}

function streamedMarkdown(slack: FakeSlack, channel: string, ts: string): number {
  return slack.messages.find((m) => m.channel === channel && m.ts === ts)?.stream?.markdown.length ?? 0;
}

const modalAjv = new Ajv2020({ allErrors: true, strict: false });
addFormats(modalAjv);
const validateModal = modalAjv.compile({
  $defs: (schema as { $defs: object }).$defs,
  $ref: '#/$defs/modal_view',
});

/** Problems with one modal view (views.open's `view`), against the schema's `modal_view`; empty when valid. */
export function modalViewProblems(view: unknown): string[] {
  if (validateModal(view)) return [];
  return (validateModal.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'invalid'}`);
}
