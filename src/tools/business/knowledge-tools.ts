import { z } from 'zod';
import { faqRow, policyRow } from '../../data/rows.js';
import type { Card } from '../../reply/model.js';
import { defineTool, type ToolOutput } from '../../contract/tool.js';
import { topicLabel } from './format.js';
import { troubleOutput, type LookupResult } from './lookup.js';
import { cacheKey, hasBusiness, scopeArgs, type BusinessEnv } from './scope.js';

/** Required (docs/business.md): a topic string; "all" lists every entry. */
const topic = (examples: string) =>
  z.string().trim().min(1).max(80).describe(`e.g. ${examples}; "all" lists everything`);

const ALL = /^(all|any|everything|\*)$/i;
const topicOrAll = (t: string): string | undefined => (ALL.test(t) ? undefined : t);

/** Matches the SQL's topic key: 'Late-Arrival' and 'late arrival' are one cache entry. */
const topicKey = (t: string | undefined) =>
  t
    ? t
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, ' ')
        .trim() || '*'
    : '*';

/** `get_policies` and `get_faqs`: the business's rules and answers, matched by topic. */
export function createKnowledgeTools(env: BusinessEnv) {
  const policies = defineTool({
    name: 'get_policies',
    title: 'Looking up policies',
    description: 'The business’s policies, by topic.',
    input: z.object({ topic: topic('cancellation, deposits, refunds') }),
    timeoutMs: env.timeoutMs,
    offer: (ctx) => hasBusiness(env, ctx),
    async run({ topic }, ctx) {
      const load = (t: string | undefined) =>
        env.lookups.run(ctx, ctx.now().getTime(), {
          tool: 'get_policies',
          fn: 'get_policies',
          key: cacheKey(ctx.tenant, 'policies', topicKey(t)),
          ttlMs: env.referenceTtlMs,
          size: (r) => r.length,
          load: () => ctx.data.call('get_policies', { ...scopeArgs(ctx.tenant), topic: t ?? null }, policyRow),
        });
      const rows = await load(topicOrAll(topic));
      if (!rows.ok) return troubleOutput('policies');
      if (rows.value.length === 0)
        return noMatch(
          'policy',
          topicOrAll(topic),
          () => load(undefined),
          (r) => r.map((p) => p.topic),
        );
      const found = rows.value;
      return {
        content: found.map((p) => `${p.title} [${topicLabel(p.topic)}]: ${p.content}`).join('\n'),
        summary: `${found.length} ${found.length === 1 ? 'policy' : 'policies'}`,
        blocks: [
          {
            type: 'cards',
            cards: found.map((p): Card => ({
              title: p.title,
              subtitle: topicLabel(p.topic),
              fields: [],
              body: p.content,
            })),
          },
        ],
      };
    },
  });

  const faqs = defineTool({
    name: 'get_faqs',
    title: 'Looking up FAQs',
    description: 'The business’s FAQ answers, by topic.',
    input: z.object({ topic: topic('parking, location, pricing') }),
    timeoutMs: env.timeoutMs,
    offer: (ctx) => hasBusiness(env, ctx),
    async run({ topic }, ctx) {
      const load = (t: string | undefined) =>
        env.lookups.run(ctx, ctx.now().getTime(), {
          tool: 'get_faqs',
          fn: 'get_faqs',
          key: cacheKey(ctx.tenant, 'faqs', topicKey(t)),
          ttlMs: env.referenceTtlMs,
          size: (r) => r.length,
          load: () =>
            ctx.data.call('get_faqs', { ...scopeArgs(ctx.tenant), topic: t ?? null, limit: t ? 5 : 30 }, faqRow),
        });
      const rows = await load(topicOrAll(topic));
      if (!rows.ok) return troubleOutput('FAQs');
      if (rows.value.length === 0)
        return noMatch(
          'FAQ',
          topicOrAll(topic),
          () => load(undefined),
          (r) => r.map((f) => f.topic),
        );
      const found = rows.value;
      return {
        content: found.map((f) => `Q: ${f.question}\nA: ${f.answer}`).join('\n'),
        summary: `${found.length} ${found.length === 1 ? 'FAQ' : 'FAQs'}`,
        blocks: [
          {
            type: 'cards',
            cards: found.map((f): Card => ({
              title: f.question,
              subtitle: topicLabel(f.topic),
              fields: [],
              body: f.answer,
            })),
          },
        ],
      };
    },
  });

  return [policies, faqs];
}

/** Nothing matched: tell the model which topics exist, so it can pick one or say there is none. */
async function noMatch<T>(
  kind: string,
  topic: string | undefined,
  loadAll: () => Promise<LookupResult<T[]>>,
  topicsOf: (rows: T[]) => string[],
): Promise<ToolOutput> {
  if (!topic) return { content: `No ${kind} entries are on file for this business.` };
  const all = await loadAll();
  const topics = all.ok ? [...new Set(topicsOf(all.value).map(topicLabel))] : [];
  return {
    content: `No ${kind} matches "${topic}".${topics.length ? ` Topics on file: ${topics.join(', ')}.` : ''}`,
    summary: `No ${kind} on “${topic}”`,
  };
}
