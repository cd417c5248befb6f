/**
 * Long-term memory (issue 45): what recall adds to a turn.
 *
 *   1. Recall over 10,000 notes: one tenant holding 10,000 live notes (5,000 team, 3,000 in 30
 *      channels, 2,000 of 50 people), and the recall a turn runs before its first model call
 *      (src/tools/memory/recall.ts, words only: no EMBEDDING_MODEL) timed over questions that
 *      match some notes and questions that match none, on the embedded database (PGlite) and, with
 *      DATABASE_URL (a server where a scratch database may be created), on Postgres.
 *   2. A turn that recalls nothing: its first request's prompt tokens (messages and tools as JSON,
 *      o200k), through the real app and the fake LLM, with memory on (10,000 notes, none relevant)
 *      and with the memory family off: the difference must be 0.
 *
 *   npx tsx bench/memory.ts [samples=200]
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/memory.ts
 *
 * Targets (issue 45): ≤ 15 ms p50 on PGlite, ≤ 5 ms p50 on Postgres; 0 tokens for a turn that recalls nothing.
 */
import { z } from 'zod';
import type { TurnScope } from '../src/contract/extension.js';
import type { ChatMessage } from '../src/contract/llm.js';
import { newThreadState } from '../src/contract/thread-state.js';
import { countMessageTokens, countTokens } from '../src/contract/tokens.js';
import type { IncomingMessage } from '../src/contract/turn.js';
import { parseConfig } from '../src/config/index.js';
import { openDataPort, type AdminDataPort } from '../src/data/index.js';
import { silentLogger } from '../src/telemetry/logger.js';
import { createRecall } from '../src/tools/memory/recall.js';
import { createTestDatabase, migratePostgres } from '../test/helpers/db.js';
import { collect, message, startHarness } from '../test/helpers/harness.js';

const SAMPLES = Number(process.argv[2] ?? 200);
const WORDS = (
  'launch budget review pricing churn onboarding roadmap invoice supplier warehouse audience ' +
  'newsletter partner contract renewal forecast hiring retention coupon loyalty webinar podcast banner ' +
  'holiday refund shipping packaging branding headline slogan discount margin quarter dashboard'
).split(' ');

/** 10,000 live notes for the tenant, in one statement per scope (deterministic texts from WORDS). */
async function fill(port: AdminDataPort, tenantId: string): Promise<void> {
  const sql = port.transport.sql!;
  const words = `array[${WORDS.map((w) => `'${w}'`).join(',')}]`;
  const text = (n: string) =>
    `'Note ' || ${n} || ': the ' || (${words})[1 + ${n} % ${WORDS.length}] || ' and the ' || (${words})[1 + (${n} * 7) % ${WORDS.length}] || ' follow the plan ' || ${n}`;
  const insert = (scope: string, count: number, author: string, channel: string) =>
    sql.exec(`insert into public.memories (tenant_id, scope, platform, author_id, channel_id, text, expires_at)
      select '${tenantId}', '${scope}', 'slack', ${author}, ${channel}, ${text('g')}, now() + interval '365 days'
      from generate_series(1, ${count}) g`);
  await insert('team', 5_000, `'U' || (g % 50)`, 'null');
  await insert('channel', 3_000, `'U' || (g % 50)`, `'C' || (g % 30)`);
  await insert('user', 2_000, `'U' || (g % 50)`, 'null');
  await sql.exec('analyze public.memories');
}

function stats(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!.toFixed(2);
  return `p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${at(1)} ms (${s.length} recalls)`;
}

async function timeRecall(label: string, port: AdminDataPort, target: number): Promise<void> {
  const tenant = await port.defaultTenant();
  await fill(port, tenant.id);
  const config = parseConfig({ LOG_LEVEL: 'silent' });
  const recall = createRecall({ ...config, EMBEDDING_MODEL: undefined });
  const questions = [
    'What is the plan for the launch budget?',
    'Tell me about our supplier contract renewal',
    'How did the holiday coupon campaign do?',
    'Who approves the quarter dashboard?',
    'What is the weather in Oslo tomorrow?',
    'Translate hello into French',
  ];
  const scopeFor = (i: number): TurnScope => {
    const m: IncomingMessage = {
      platform: 'slack',
      workspaceId: 'T1',
      channelId: i % 2 ? `C${i % 30}` : `D${i % 50}`,
      threadId: `t${i}`,
      messageId: `m${i}`,
      userId: `U${i % 50}`,
      role: 'member',
      isDirect: i % 2 === 0,
      text: questions[i % questions.length]!,
    };
    return {
      message: m,
      tenant,
      state: newThreadState('bench'),
      data: port.forTenant(tenant),
      llm: undefined as unknown as TurnScope['llm'], // words only: the recall never embeds here
      log: silentLogger(),
      now: () => new Date(),
    };
  };
  const signal = new AbortController().signal;
  for (let i = 0; i < 20; i++) await recall(scopeFor(i), questions[i % questions.length]!, signal); // warm-up
  const hit: number[] = [];
  const miss: number[] = [];
  let recalled = 0;
  for (let i = 0; i < SAMPLES; i++) {
    const q = questions[i % questions.length]!;
    const t = performance.now();
    const got = await recall(scopeFor(i), q, signal);
    (i % questions.length < 4 ? hit : miss).push(performance.now() - t);
    recalled += got?.count ?? 0;
  }
  const all = [...hit, ...miss].sort((a, b) => a - b);
  const p50 = all[Math.floor(all.length / 2)]!;
  console.log(
    `${label}: recall over 10,000 notes, ${stats(all)}; target ≤ ${target} ms p50 ${p50 <= target ? 'OK' : 'MISSED'}`,
  );
  console.log(
    `  questions that match notes: ${stats(hit)}; that match none: ${stats(miss)}; ${(recalled / SAMPLES).toFixed(1)} notes recalled a turn on average`,
  );
}

/** Prompt tokens of the first request of a turn that recalls nothing, with memory on and off. */
async function tokensOfNothing(): Promise<void> {
  const measure = async (families: string[]) => {
    const port = await openDataPort(parseConfig({ PGLITE_MEMORY: '1', LOG_LEVEL: 'silent' }), silentLogger(), {});
    await port.admin('set_tenant_tools', { tenant: 'default', tools: families }, z.unknown());
    await fill(port, (await port.defaultTenant()).id);
    const h = await startHarness({ data: port, env: { LOG_LEVEL: 'silent' } });
    h.llm.script({ text: 'ok' });
    await collect(
      h.sb.agent.handle(
        message('What are the offers from recent Cash Back, Premium campaigns?', {
          platform: 'slack',
          workspaceId: 'T1',
          channelId: 'C1',
          isDirect: false,
          userId: 'U1',
        }),
      ),
    );
    const body = h.llm.lastRequest('/chat/completions')!.body;
    const tokens = countMessageTokens(body.messages as ChatMessage[]) + countTokens(JSON.stringify(body.tools ?? []));
    await h.close();
    await port.close();
    return tokens;
  };
  const base = ['artifacts', 'campaigns', 'competitors', 'quotes', 'web'];
  const off = await measure(base);
  const on = await measure([...base, 'memory']);
  console.log(
    `a turn that recalls nothing (10,000 notes, none relevant): ${on} prompt tokens with memory on, ${off} with it off: ${on - off} added (target 0) ${on === off ? 'OK' : 'MISSED'}`,
  );
}

const pglite = await openDataPort(parseConfig({ PGLITE_MEMORY: '1', LOG_LEVEL: 'silent' }), silentLogger(), {});
await timeRecall('PGlite', pglite, 15);
await pglite.close();

const server = process.env.DATABASE_URL;
if (server) {
  const db = await createTestDatabase(server, 'sbbench');
  try {
    await migratePostgres(db.url, 1536);
    const pg = await openDataPort(parseConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' }), silentLogger(), {
      seedDemo: false,
    });
    await timeRecall('Postgres', pg, 5);
    await pg.close();
  } finally {
    await db.drop();
  }
} else console.log('Postgres: skipped (set DATABASE_URL to a server where a scratch database may be created)');

await tokensOfNothing();
