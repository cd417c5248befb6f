import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { DataError, type DataPort } from '../../contract/data.js';
import { createApiToken, listApiTokens, revokeApiToken } from '../../data/api-tokens.js';
import { isAdminPort } from '../../data/rpc-port.js';
import { adminBusinessRow, adminFaqRow, adminPolicyRow, deletedRow } from '../../data/rows.js';
import type { Logger } from '../../telemetry/logger.js';
import { mountTenantAdmin } from './admin-tenants.js';
import { mountMcpAdmin } from './admin-mcp.js';
import type { McpRuntime } from '../../mcp/index.js';
import { mountThreadContextAdmin } from './admin-thread-context.js';
import { mountChannelAdmin } from './admin-channels.js';
import { jsonBodiesOnly } from './json-body.js';
import type { WrongTokens } from '../../security/wrong-tokens.js';
import { clientAddress } from './access.js';
import { bearerToken, secretMatches } from './bearer.js';

/**
 * Seed 004's admin endpoints, behind ADMIN_TOKEN (its own bearer token, not API_TOKEN):
 *
 *   GET    /tts_admin/policies/{business_id}[?topic=]     → { status: "ok", policies: [...] }
 *   POST   /tts_admin/policies/{business_id}              → { status: "ok", policy }          (201)
 *   PUT    /tts_admin/policies/{business_id}/{policy_id}  → { status: "ok", policy }
 *   DELETE /tts_admin/policies/{business_id}/{policy_id}  → { status: "ok", deleted: id }
 *   and the same for /tts_admin/faqs;
 *   GET /tts_admin/tenants, PUT /tts_admin/tenants/{slug}/tools: tool families (admin-tenants.ts).
 *   GET|PATCH|DELETE /tts_admin/tenants/{slug}/channels[/{channel}]: settings per channel (admin-channels.ts).
 *
 *   GET    /tts_admin/tokens[?tenant=]                    → { status: "ok", tokens: [...] }   (no secrets)
 *   POST   /tts_admin/tokens  { tenant, label? }          → { status: "ok", token, record }   (201; the secret, once)
 *   DELETE /tts_admin/tokens/{id or prefix}               → { status: "ok", revoked: record }
 *
 * The tenant is the business's own, found from the id in the path; a body naming a tenant or a
 * business is refused (strict schemas), and a policy or FAQ id of another business is a 404.
 * Errors: `{ status: "error", error: { code, message } }` with 400 validation_failed, 401
 * unauthorized (no `Authorization: Bearer <ADMIN_TOKEN>`: a bare token is not read), 404 not_found,
 * 409 conflict, 429 rate_limited (too many wrong tokens from the address, with Retry-After;
 * counted with the console's sign-in, security/wrong-tokens.ts), 503 unavailable.
 */

const topic = z.string().trim().min(1).max(80);
const policyCreate = z.strictObject({
  topic,
  title: z.string().trim().min(1).max(200).optional(),
  content: z.string().trim().min(1).max(10_000),
});
const policyUpdate = policyCreate
  .partial()
  .refine((b) => Object.keys(b).length > 0, { error: 'give at least one of topic, title, content' });
const tags = z.array(z.string().trim().min(1).max(50)).max(20);
const faqCreate = z.strictObject({
  topic,
  question: z.string().trim().min(1).max(500),
  answer: z.string().trim().min(1).max(10_000),
  tags: tags.optional(),
});
const faqUpdate = faqCreate
  .partial()
  .refine((b) => Object.keys(b).length > 0, { error: 'give at least one of topic, question, answer, tags' });
const uuid = z.uuid({ error: 'expected a UUID' });
const tokenCreate = z.strictObject({
  tenant: z.string().trim().min(1).max(200),
  label: z.string().trim().min(1).max(200).optional(),
});

type ErrorCode =
  'validation_failed' | 'unauthorized' | 'rate_limited' | 'not_found' | 'conflict' | 'unavailable' | 'admin_disabled';
const fail = (c: Context, status: 400 | 401 | 404 | 409 | 429 | 503, code: ErrorCode, message: string) =>
  c.json({ status: 'error', error: { code, message } }, status);

export function mountAdmin(
  app: Hono,
  opts: {
    token: string | undefined;
    data: DataPort;
    log: Logger;
    trustProxy: number;
    wrongTokens: WrongTokens;
    /** A tenant's MCP servers (issue 44). */
    mcp?: McpRuntime | undefined;
  },
): void {
  const { token, data, log, wrongTokens } = opts;
  const base = '/tts_admin';
  app.use(`${base}/*`, async (c, next) => {
    if (!token) return fail(c, 404, 'admin_disabled', 'The admin API is off: set ADMIN_TOKEN to enable it.');
    const header = c.req.header('authorization');
    const given = bearerToken(header);
    if (given === undefined)
      return fail(
        c,
        401,
        'unauthorized',
        header
          ? 'The Authorization header must be "Bearer <ADMIN_TOKEN>".'
          : 'Missing bearer token: send Authorization: Bearer <ADMIN_TOKEN>.',
      );
    // Wrong tokens count against the client's address, with the console's sign-in (wrong-tokens.ts).
    const address = clientAddress(c, opts.trustProxy);
    const matches = secretMatches(given, token);
    const decision = matches ? await wrongTokens.admit(address) : await wrongTokens.wrong(address);
    if (!decision.ok) {
      // At debug: a guesser makes as many of these as it likes (its wrong tokens were logged at warn).
      log.debug(
        { address, path: c.req.path, code: 'rate_limited' },
        'admin API: too many wrong tokens from this address',
      );
      c.header('Retry-After', String(decision.retryAfterSeconds));
      return fail(
        c,
        429,
        'rate_limited',
        `Too many wrong tokens from this address: try again in ${decision.retryAfterSeconds} s.`,
      );
    }
    if (!matches) {
      log.warn({ address, path: c.req.path, code: 'unauthorized' }, 'admin API: a wrong bearer token');
      return fail(c, 401, 'unauthorized', 'Wrong bearer token (ADMIN_TOKEN).');
    }
    if (!isAdminPort(data)) return fail(c, 503, 'unavailable', 'This data source does not offer admin functions.');
    return next();
  });
  // After the token check (a stranger learns nothing more than 401): bodies are JSON only (json-body.ts).
  app.use(
    `${base}/*`,
    jsonBodiesOnly((message) => ({ status: 'error', error: { code: 'unsupported_media_type', message } })),
  );
  if (!isAdminPort(data)) return;
  const port = data;
  mountTenantAdmin(app, base, port, log);
  if (opts.mcp) mountMcpAdmin(app, base, port, opts.mcp, log);
  mountThreadContextAdmin(app, base, port, log);
  mountChannelAdmin(app, base, port, log);

  /** The business in the path, or a response saying why not. */
  async function business(c: Context): Promise<{ id: string } | Response> {
    const id = uuid.safeParse(c.req.param('business_id'));
    if (!id.success) return fail(c, 400, 'validation_failed', 'business_id: expected a UUID');
    const [row] = await port.admin('admin_business', { business_id: id.data }, adminBusinessRow);
    if (!row) return fail(c, 404, 'not_found', `No business ${id.data}.`);
    return { id: row.business_id };
  }

  async function body<S extends z.ZodType>(
    c: Context,
    schema: S,
  ): Promise<{ ok: true; value: z.infer<S> } | { ok: false; res: Response }> {
    let raw: unknown;
    try {
      raw = await c.req.json();
    } catch {
      return { ok: false, res: fail(c, 400, 'validation_failed', 'The request body must be a JSON object.') };
    }
    const parsed = schema.safeParse(raw);
    if (parsed.success) return { ok: true, value: parsed.data };
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      res: fail(c, 400, 'validation_failed', `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`),
    };
  }

  const handle = (fn: (c: Context) => Promise<Response>) => async (c: Context) => {
    try {
      return await fn(c);
    } catch (err) {
      if (err instanceof DataError && err.detail?.startsWith('conflict:'))
        return fail(c, 409, 'conflict', err.detail.slice('conflict:'.length).trim());
      log.error({ err, path: c.req.path }, 'admin request failed');
      return fail(c, 503, 'unavailable', 'The database could not complete that. It has been logged.');
    }
  };

  /** The database's refusal (unknown tenant, no or several matching tokens) as a 404, else rethrown. */
  const refused = (c: Context, err: unknown) => {
    if (err instanceof DataError && err.code === 'invalid_input' && err.detail && !err.detail.startsWith('conflict:'))
      return fail(c, 404, 'not_found', err.detail);
    throw err;
  };

  app.get(
    `${base}/tokens`,
    handle(async (c) => {
      try {
        const tokens = await listApiTokens(port, c.req.query('tenant')?.trim() || undefined);
        return c.json({ status: 'ok', tokens });
      } catch (err) {
        return refused(c, err);
      }
    }),
  );

  app.post(
    `${base}/tokens`,
    handle(async (c) => {
      const b = await body(c, tokenCreate);
      if (!b.ok) return b.res;
      try {
        const { token, record } = await createApiToken(port, b.value.tenant, b.value.label);
        log.info({ tenant: record.tenant_slug, tokenId: record.id }, 'admin created an API token');
        return c.json({ status: 'ok', token, record }, 201);
      } catch (err) {
        return refused(c, err);
      }
    }),
  );

  app.delete(
    `${base}/tokens/:token`,
    handle(async (c) => {
      try {
        const record = await revokeApiToken(port, c.req.param('token') ?? '');
        log.info({ tenant: record.tenant_slug, tokenId: record.id }, 'admin revoked an API token');
        return c.json({ status: 'ok', revoked: record });
      } catch (err) {
        return refused(c, err);
      }
    }),
  );

  for (const kind of ['policies', 'faqs'] as const) {
    const one = kind === 'policies' ? 'policy' : 'faq';
    const list = kind === 'policies' ? 'admin_list_policies' : 'admin_list_faqs';
    const row = kind === 'policies' ? adminPolicyRow : adminFaqRow;

    app.get(
      `${base}/${kind}/:business_id`,
      handle(async (c) => {
        const biz = await business(c);
        if (biz instanceof Response) return biz;
        const t = c.req.query('topic');
        const rows = await port.admin(list, { business_id: biz.id, topic: t?.trim() || null }, row);
        return c.json({ status: 'ok', [kind]: rows });
      }),
    );

    app.post(
      `${base}/${kind}/:business_id`,
      handle(async (c) => {
        const biz = await business(c);
        if (biz instanceof Response) return biz;
        if (kind === 'policies') {
          const b = await body(c, policyCreate);
          if (!b.ok) return b.res;
          const [saved] = await port.admin(
            'admin_save_policy',
            { business_id: biz.id, topic: b.value.topic, title: b.value.title ?? null, content: b.value.content },
            adminPolicyRow,
          );
          log.info({ businessId: biz.id, policyId: saved?.id }, 'admin created a policy');
          return c.json({ status: 'ok', policy: saved }, 201);
        }
        const b = await body(c, faqCreate);
        if (!b.ok) return b.res;
        const [saved] = await port.admin(
          'admin_save_faq',
          {
            business_id: biz.id,
            topic: b.value.topic,
            question: b.value.question,
            answer: b.value.answer,
            tags: b.value.tags ?? null,
          },
          adminFaqRow,
        );
        log.info({ businessId: biz.id, faqId: saved?.id }, 'admin created an FAQ');
        return c.json({ status: 'ok', faq: saved }, 201);
      }),
    );

    app.put(
      `${base}/${kind}/:business_id/:id`,
      handle(async (c) => {
        const biz = await business(c);
        if (biz instanceof Response) return biz;
        const id = uuid.safeParse(c.req.param('id'));
        if (!id.success) return fail(c, 400, 'validation_failed', `${one}_id: expected a UUID`);
        let saved: unknown;
        if (kind === 'policies') {
          const b = await body(c, policyUpdate);
          if (!b.ok) return b.res;
          [saved] = await port.admin(
            'admin_save_policy',
            {
              business_id: biz.id,
              id: id.data,
              topic: b.value.topic ?? null,
              title: b.value.title ?? null,
              content: b.value.content ?? null,
            },
            adminPolicyRow,
          );
        } else {
          const b = await body(c, faqUpdate);
          if (!b.ok) return b.res;
          [saved] = await port.admin(
            'admin_save_faq',
            {
              business_id: biz.id,
              id: id.data,
              topic: b.value.topic ?? null,
              question: b.value.question ?? null,
              answer: b.value.answer ?? null,
              tags: b.value.tags ?? null,
            },
            adminFaqRow,
          );
        }
        if (!saved) return fail(c, 404, 'not_found', `No ${one} ${id.data} in business ${biz.id}.`);
        return c.json({ status: 'ok', [one]: saved });
      }),
    );

    app.delete(
      `${base}/${kind}/:business_id/:id`,
      handle(async (c) => {
        const biz = await business(c);
        if (biz instanceof Response) return biz;
        const id = uuid.safeParse(c.req.param('id'));
        if (!id.success) return fail(c, 400, 'validation_failed', `${one}_id: expected a UUID`);
        const [deleted] = await port.admin(
          kind === 'policies' ? 'admin_delete_policy' : 'admin_delete_faq',
          { business_id: biz.id, id: id.data },
          deletedRow,
        );
        if (!deleted) return fail(c, 404, 'not_found', `No ${one} ${id.data} in business ${biz.id}.`);
        log.info(
          { businessId: biz.id, [`${one}Id`]: id.data },
          `admin deleted a${kind === 'faqs' ? 'n FAQ' : ' policy'}`,
        );
        return c.json({ status: 'ok', deleted: deleted.id });
      }),
    );
  }
}
