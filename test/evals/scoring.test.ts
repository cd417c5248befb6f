import { describe, expect, it } from 'vitest';
import type { EvalCase } from '../../evals/case.js';
import { ALL_CASES } from '../../evals/cases/index.js';
import { compareToBaseline, formatTable, parseRunReport, summarize } from '../../evals/report.js';
import type { CaseResult } from '../../evals/runner.js';
import { scoreCase, type ObservedTurn } from '../../evals/score.js';
import { DRAFT_QUESTION_PLACEHOLDER, draftEvalCase, renderEvalCaseDraft } from '../../src/contract/eval-draft.js';

const policyCase: EvalCase = {
  id: 'business/cancellation-fee',
  family: 'business',
  tenant: 'harbourside',
  question: 'What happens if I cancel the same day?',
  tools: { must: [{ tool: 'get_policies', args: { topic: /cancel/i } }], mustNot: ['take_message'] },
  facts: { must: [/24 hours/i, '50%'], mustNot: ['sarah.mitchell@example.com'] },
  maxTokens: 3_000,
};

const goodTurn: ObservedTurn = {
  answer: 'Cancelling with less than 24 hours notice costs 50% of the session fee.',
  calls: [{ tool: 'get_policies', arguments: { topic: 'cancellation' }, ok: true }],
  usage: { promptTokens: 1_800, completionTokens: 60 },
};

describe('scoring an eval case', () => {
  it('passes a turn that called the right tool with the right arguments and said the facts', () => {
    expect(scoreCase(policyCase, goodTurn)).toEqual({ pass: true, failures: [] });
  });

  it('fails a wrong tool, naming what was called instead', () => {
    const score = scoreCase(policyCase, {
      ...goodTurn,
      calls: [{ tool: 'get_faqs', arguments: { topic: 'cancellation' }, ok: true }],
    });
    expect(score.pass).toBe(false);
    expect(score.failures).toEqual(['expected a call of get_policies; called get_faqs']);
  });

  it('fails the right tool with the wrong arguments, naming the field', () => {
    const score = scoreCase(policyCase, {
      ...goodTurn,
      calls: [{ tool: 'get_policies', arguments: { topic: 'parking' }, ok: true }],
    });
    expect(score.failures).toEqual([
      'get_policies was called with other arguments (topic: want /cancel/i, got "parking")',
    ]);
  });

  it('fails a missing fact and a forbidden fact', () => {
    const score = scoreCase(policyCase, {
      ...goodTurn,
      answer: 'You can cancel any time. We will email sarah.mitchell@example.com.',
    });
    expect(score.failures).toEqual([
      'the answer lacks /24 hours/i',
      'the answer lacks "50%"',
      'the answer contains "sarah.mitchell@example.com", which it must not',
    ]);
  });

  it('fails a turn over its token ceiling, and a forbidden tool', () => {
    const score = scoreCase(policyCase, {
      ...goodTurn,
      calls: [...goodTurn.calls, { tool: 'take_message', arguments: {}, ok: true }],
      usage: { promptTokens: 2_990, completionTokens: 20 },
    });
    expect(score.failures).toEqual([
      'take_message must not be called, and was',
      '3010 tokens, over the ceiling of 3000',
    ]);
  });

  it("looks for a fact in the model's own words when the case says so, not in the tools' cards", () => {
    const turn = { ...goodTurn, answer: `Here it is.\n\n${goodTurn.answer}`, text: 'Here it is.' };
    expect(scoreCase(policyCase, turn).pass).toBe(true);
    const own = { ...policyCase, facts: { ...policyCase.facts, in: 'text' as const } };
    expect(scoreCase(own, turn).failures).toEqual([
      "the model's text lacks /24 hours/i",
      'the model\'s text lacks "50%"',
    ]);
  });

  it('fails a turn that ended in an error', () => {
    const score = scoreCase(policyCase, {
      answer: '',
      calls: [],
      usage: { promptTokens: 0, completionTokens: 0 },
      error: { code: 'llm_unavailable', message: 'The model is not answering.' },
    });
    expect(score.failures[0]).toBe('the turn failed: llm_unavailable ("The model is not answering.")');
  });

  it('matches a string against any element of an array argument, and nested fields', () => {
    const c: EvalCase = {
      ...policyCase,
      tools: {
        must: [{ tool: ['filter_campaigns', 'semantic_search'], args: { channel: 'email', value_prop: /cash/i } }],
      },
      facts: {},
    };
    const call = (args: unknown) => ({ ...goodTurn, calls: [{ tool: 'filter_campaigns', arguments: args, ok: true }] });
    expect(scoreCase(c, call({ channel: ['TV', 'Email'], value_prop: ['Cash Back'] })).pass).toBe(true);
    expect(scoreCase(c, call({ channel: ['TV'], value_prop: ['Cash Back'] })).pass).toBe(false);
  });
});

describe('the suite', () => {
  it('has at least 40 cases over the five families, each with a unique id and a token ceiling', () => {
    expect(ALL_CASES.length).toBeGreaterThanOrEqual(40);
    expect(new Set(ALL_CASES.map((c) => c.family))).toEqual(
      new Set(['campaigns', 'competitors', 'quotes', 'business', 'web']),
    );
    expect(new Set(ALL_CASES.map((c) => c.id)).size).toBe(ALL_CASES.length);
    for (const c of ALL_CASES) expect(c.maxTokens, c.id).toBeGreaterThan(0);
  });
});

const result = (id: string, status: CaseResult['status'], tokens = 1_000): CaseResult => ({
  id,
  family: 'business',
  tenant: 'harbourside',
  status,
  failures: status === 'fail' ? ['the answer lacks "50%"'] : [],
  tokens: { prompt: tokens - 100, completion: 100, total: tokens },
  costUsd: tokens / 1e6,
  latencyMs: 900,
  tools: ['get_policies'],
  answer: '',
});

describe('the report and the baseline', () => {
  const run = {
    model: 'gpt-test',
    provider: 'api.example',
    source: 'live' as const,
    at: new Date('2026-11-27T12:00:00Z'),
  };

  it('says which cases regressed and which got fixed, and survives a round trip through JSON', () => {
    const before = summarize(
      [result('business/a', 'pass'), result('business/b', 'fail'), result('business/c', 'pass')],
      run,
    );
    const after = summarize(
      [result('business/a', 'fail', 1_500), result('business/b', 'pass'), result('business/d', 'pass')],
      run,
    );
    const saved = parseRunReport(JSON.stringify(before), 'baseline.json');
    const diff = compareToBaseline(after, saved);
    expect(diff.regressed).toEqual(['business/a']);
    expect(diff.fixed).toEqual(['business/b']);
    expect(diff.added).toEqual(['business/d']);
    expect(diff.removed).toEqual(['business/c']);
    expect(diff.cases[0]).toMatchObject({ id: 'business/a', before: 'pass', after: 'fail', tokens: 500 });
    expect(diff.passRate).toEqual({ before: 2 / 3, after: 2 / 3 });
    const table = formatTable(after, diff);
    expect(table).toContain('regressed: business/a');
    expect(table).toMatch(/FAIL\s+business\/a\s+1500\s+\$0\.00150\s+900\s+\+500\s+PASS/);
  });

  it('refuses a file that is not a saved run, naming it', () => {
    expect(() => parseRunReport('{"kind":"x"}', 'old.json')).toThrow(/old\.json is not an eval run: kind/);
    expect(() => parseRunReport('nope', 'old.json')).toThrow(/old\.json is not JSON/);
  });
});

describe('drafting a case from feedback', () => {
  const turn = {
    id: '3f2a9c1e-0b6d-4e8f-9a1b-2c3d4e5f6a7b',
    tenant: 'harbourside',
    at: '2026-11-27T10:00:00Z',
    model: 'gpt-test',
    tools: [
      { tool: 'get_faqs', ok: true },
      { tool: 'get_faqs', ok: true },
      { tool: 'get_policies', ok: false },
    ],
    tokens: 3_100,
  };
  const familyOf = (tool: string) => (tool.startsWith('get_') ? 'business' : undefined);

  it('leaves the question to the operator when the turn record did not keep it', () => {
    const draft = draftEvalCase(turn, { value: 'down', comment: 'It quoted the wrong fee.' }, { familyOf });
    expect(draft).toMatchObject({
      id: 'business/feedback-3f2a9c1e',
      family: 'business',
      question: null,
      tools: [
        { tool: 'get_faqs', ok: true },
        { tool: 'get_policies', ok: false },
      ],
      expectation: 'It quoted the wrong fee.',
      maxTokens: 5_000,
    });
    const source = renderEvalCaseDraft(draft);
    expect(source).toContain(`question: "${DRAFT_QUESTION_PLACEHOLDER}"`);
    expect(source).toContain('must: ["get_faqs"]');
    expect(source).toContain('// What the user said: It quoted the wrong fee.');
  });

  it('renders a valid object literal whatever the user wrote, a kept question included', () => {
    const nasty = 'Line one\n// */ "quoted" `tick` ${x}\u2028end';
    const draft = draftEvalCase(
      { ...turn, question: 'What is "the" fee?\nAnd why?' },
      { value: 'down', comment: nasty },
      { familyOf },
    );
    const source = renderEvalCaseDraft(draft);
    const body = source.slice(source.indexOf('\n{\n'), source.lastIndexOf('}') + 1);
    const parsed = new Function(`return (${body});`)() as { question: string; note: string; tenant: string };
    expect(parsed.question).toBe('What is "the" fee?\nAnd why?');
    expect(parsed.tenant).toBe('harbourside');
    expect(parsed.note).toContain('"quoted"');
    // The comment never breaks out of its `//` line.
    for (const line of source.split('\n').filter((l) => l.includes('What the user said')))
      expect(line.startsWith('// What the user said: Line one // */')).toBe(true);
  });
});
