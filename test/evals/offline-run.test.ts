/**
 * The eval suite offline (issue 47, item 5): `npm run eval`'s own code path (evals/cli.ts: the app's
 * composition, the agent, the tools, the embedded demo database) against the scripted fake model,
 * so a case that must pass passes and each kind of deliberately wrong answer is caught.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EvalCase } from '../../evals/case.js';
import { ALL_CASES } from '../../evals/cases/index.js';
import { runEval } from '../../evals/cli.js';
import { draftFromFeedback, toolFamilies } from '../../evals/from-feedback.js';
import type { RunReport } from '../../evals/report.js';
import { DRAFT_QUESTION_PLACEHOLDER } from '../../src/contract/eval-draft.js';
import type { TurnEvent } from '../../src/contract/turn.js';
import { createFeedbackStore } from '../../src/data/feedback.js';
import { isAdminPort } from '../../src/data/rpc-port.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { collect, message, startHarness } from '../helpers/harness.js';

const suiteCase = (id: string): EvalCase => {
  const found = ALL_CASES.find((c) => c.id === id);
  if (!found) throw new Error(`no case ${id} in the suite`);
  return found;
};
const cancellation = suiteCase('business/cancellation-fee');
const guest = suiteCase('business/guest-needs-proof');
const saturday = suiteCase('business/saturday-hours');
const RIGHT_ANSWER = 'Cancelling with less than 24 hours notice is charged 50% of the session fee.';

let llm: FakeOpenAI;
let dir: string;
beforeAll(async () => {
  llm = await startFakeOpenAI();
  dir = await mkdtemp(join(tmpdir(), 'evals-'));
});
afterAll(async () => {
  await llm.close();
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => llm.reset());

function io(cases: readonly EvalCase[]) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: {
      env: {
        OPENAI_API_KEY: 'sk-eval-offline',
        OPENAI_BASE_URL: llm.url,
        OPENAI_MODEL: 'gpt-test',
        OPENAI_MAX_RETRIES: '0',
        OPENAI_TIMEOUT_MS: '30000',
        // The embedded database template's (assets/pglite-template.json): a fresh database is unpacked, not initdb'd.
        EMBEDDING_DIMENSIONS: '1536',
        // The clinic's lookups get 400 ms in production; a loaded CI machine's first query may take longer.
        BUSINESS_TOOL_TIMEOUT_MS: '5000',
        LOG_LEVEL: 'silent',
      },
      out: (text: string) => out.push(text),
      err: (text: string) => err.push(text),
      cases,
    },
  };
}

describe('npm run eval against the scripted fake model', () => {
  it('passes the case that must pass and catches a wrong tool, a missing fact, a forbidden fact and the token ceiling', async () => {
    const cases: EvalCase[] = [
      cancellation,
      { ...cancellation, id: 'business/deliberately-wrong-tool' },
      saturday,
      guest,
      { ...cancellation, id: 'business/deliberately-over-ceiling' },
      // Skipped: this deployment has no TAVILY_API_KEY, and a draft's question is not written yet.
      suiteCase('web/current-news'),
      { ...cancellation, id: 'business/draft', question: DRAFT_QUESTION_PLACEHOLDER },
      // Its first message fails: the scored question is not asked in a thread that is not the case's.
      { ...cancellation, id: 'business/deliberately-broken-before', before: ['Hello?'] },
    ];
    llm.script(
      // business/cancellation-fee: the policy lookup, then the right answer.
      { toolCalls: [{ name: 'get_policies', arguments: { topic: 'cancellation' } }] },
      { text: RIGHT_ANSWER },
      // The FAQ instead of the policy.
      { toolCalls: [{ name: 'get_faqs', arguments: { topic: 'cancellation' } }] },
      { text: RIGHT_ANSWER },
      // Saturday's hours without the closing time.
      { text: 'Yes, we are open on Saturday.' },
      // A guest is shown what it must not see.
      { text: 'That booking is for sarah.mitchell@example.com at 10:30.' },
      // Right, but far over the case's token ceiling.
      { toolCalls: [{ name: 'get_policies', arguments: { topic: 'cancellation' } }] },
      { text: RIGHT_ANSWER, usage: { prompt_tokens: 9_000, completion_tokens: 40 } },
      { status: 400, body: { error: { message: 'bad request', type: 'invalid_request_error' } } },
    );
    const baseline = join(dir, 'baseline.json');
    const recordings = join(dir, 'recordings');
    const run = io(cases);
    const code = await runEval(
      [
        '--json',
        '--concurrency',
        '1',
        '--save-baseline',
        '--baseline',
        baseline,
        '--record',
        recordings,
        '--out',
        join(dir, 'run.json'),
      ],
      run.io,
    );
    expect(code).toBe(1);
    const report = JSON.parse(run.out.join('\n')) as RunReport;
    const byId = new Map(report.cases.map((c) => [c.id, c]));
    expect(byId.get('business/cancellation-fee')).toMatchObject({
      status: 'pass',
      failures: [],
      tools: ['get_policies'],
    });
    expect(byId.get('business/deliberately-wrong-tool')?.failures).toEqual([
      'expected a call of get_policies; called get_faqs',
    ]);
    expect(byId.get('business/saturday-hours')?.failures).toEqual(['the answer lacks /1(:00)? ?pm|13:00/i']);
    expect(byId.get('business/guest-needs-proof')?.failures).toEqual([
      'the answer contains "sarah.mitchell@example.com", which it must not',
    ]);
    expect(byId.get('business/deliberately-over-ceiling')?.failures).toEqual([
      expect.stringMatching(/^\d+ tokens, over the ceiling of 7000$/),
    ]);
    expect(byId.get('business/deliberately-broken-before')?.failures).toEqual([
      expect.stringMatching(/^`before` message 1 failed: \w+$/),
    ]);
    expect(report.totals).toMatchObject({ cases: 8, passed: 1, failed: 5, skipped: 2, passRate: 1 / 6 });
    expect(byId.get('web/current-news')).toMatchObject({ status: 'skip', reason: 'this deployment has no web_search' });
    expect(byId.get('business/draft')).toMatchObject({ status: 'skip', reason: 'a draft: write its question first' });
    const ran = report.cases.filter((c) => c.status !== 'skip' && c.id !== 'business/deliberately-broken-before');
    expect(ran.every((c) => c.latencyMs > 0 && c.tokens.total > 0)).toBe(true);
    // The baseline is the run, saved as written.
    expect(JSON.parse(await readFile(baseline, 'utf8'))).toEqual(report);

    expect(report.source).toBe('live');

    // Replayed from the recordings, with the model's first answer of one case changed (as a new
    // model might): no provider is asked (the strict fake would fail the test), every other case
    // scores as recorded, and the changed one is reported as regressed from the baseline.
    const recorded = join(recordings, 'business--cancellation-fee.json');
    const tape = JSON.parse(await readFile(recorded, 'utf8')) as { completions: { toolCalls: { name: string }[] }[] };
    expect(tape.completions).toHaveLength(2);
    tape.completions[0]!.toolCalls[0]!.name = 'get_faqs';
    await writeFile(recorded, JSON.stringify(tape));
    const requestsBefore = llm.requests.length;
    const again = io(cases);
    expect(
      await runEval(['--replay', recordings, '--baseline', baseline, '--out', join(dir, 'run2.json')], again.io),
    ).toBe(1);
    expect(llm.requests.length).toBe(requestsBefore);
    const table = again.out.join('\n');
    expect(table).toMatch(
      /^FAIL\s+business\/cancellation-fee\s.*get_faqs · expected a call of get_policies; called get_faqs$/m,
    );
    for (const id of [
      'deliberately-wrong-tool',
      'saturday-hours',
      'guest-needs-proof',
      'deliberately-over-ceiling',
      'deliberately-broken-before',
    ])
      expect(table).toMatch(new RegExp(`^FAIL\\s+business/${id}\\s.*FAIL\\s`, 'm'));
    expect(table).toContain('REPLAYED FROM RECORDINGS');
    expect(table).toContain('pass rate 16.7% → 0.0%');
    expect(table).toContain('regressed: business/cancellation-fee');
  });

  it('says what is wrong with a bad command line, without starting anything', async () => {
    const run = io(ALL_CASES);
    expect(await runEval(['--family', 'weather'], run.io)).toBe(2);
    expect(run.err.join('\n')).toContain('--family weather: not a family');
    expect(await runEval(['--baseline', join(dir, 'none.json')], run.io)).toBe(2);
    expect(run.err.join('\n')).toContain('no such file (write one with --save-baseline)');
  });
});

describe('from a thumbs-down to a draft case', () => {
  it('npm run eval -- --from-feedback <turn> drafts the tools that ran and the comment, the question left to write', async () => {
    // The deployment's own database (on disk here), where the turn record and its vote are.
    const dataDir = join(dir, 'pglite');
    const env = { PGLITE_MEMORY: '', PGLITE_DIR: dataDir, EMBEDDING_DIMENSIONS: '1536' };
    const h = await startHarness({ llm, env });
    let turnId: string | undefined;
    try {
      llm.script(
        { toolCalls: [{ name: 'get_policies', arguments: { topic: 'cancellation' } }] },
        { text: 'There is no fee.' },
      );
      const events = await collect(
        h.sb.agent.handle(message('Is there a fee to cancel?', { workspaceId: 'harbourside' })),
      );
      turnId = events.find((e): e is Extract<TurnEvent, { type: 'done' }> => e.type === 'done')?.turnId;
      if (!isAdminPort(h.sb.data) || !turnId) throw new Error('the turn has an id and the harness an admin port');
      const clinic = await h.sb.data.resolveTenant('http', 'harbourside');
      await createFeedbackStore(h.sb.data).record(clinic!.id, {
        turnId,
        userHash: 'voter-hash',
        platform: 'http',
        value: 'down',
        comment: 'Wrong: a late cancellation costs 50%.',
      });
      const unknown = await draftFromFeedback(h.sb.data, '00000000-0000-4000-8000-000000000000', {
        familyOf: toolFamilies(h.config),
      });
      expect(unknown).toEqual({ ok: false, problem: expect.stringContaining('no feedback on turn') });
    } finally {
      await h.close();
    }

    const draftFile = join(dir, 'draft.txt');
    const run = io(ALL_CASES);
    const cli = { ...run.io, env: { ...run.io.env, ...env } };
    expect(await runEval(['--from-feedback', turnId, '--draft-out', draftFile], cli)).toBe(0);
    const source = await readFile(draftFile, 'utf8');
    expect(run.out.join('\n')).toBe(source.trimEnd());
    expect(source).toContain(`id: "business/feedback-${turnId.replace(/-/g, '').slice(0, 8)}"`);
    expect(source).toContain('tenant: "harbourside"');
    expect(source).toContain(`question: "${DRAFT_QUESTION_PLACEHOLDER}"`);
    expect(source).toContain('must: ["get_policies"]');
    expect(source).toContain('// What the user said: Wrong: a late cancellation costs 50%.');
    expect(run.err.join('\n')).toContain('paste it into evals/cases/business.ts');
    expect(await runEval(['--from-feedback', 'not-a-turn'], cli)).toBe(1);
    expect(run.err.join('\n')).toContain('--from-feedback not-a-turn: a turn id is a UUID');
  });
});
