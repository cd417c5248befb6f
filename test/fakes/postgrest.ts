import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback stand-in for Supabase's REST endpoint, enough of PostgREST's RPC protocol
 * for the real supabase-js to talk to: `POST /rest/v1/rpc/<fn>` with the arguments as
 * a JSON object. Like PostgREST it looks the function up in `pg_proc` (in `public`),
 * matches the arguments by name, converts them with `json_to_record` using the
 * function's declared types, runs the function on the real database and answers with
 * `json_agg` of the rows, or a PostgREST-shaped error.
 *
 * Every request is recorded, so tests can assert what supabase-js actually sends.
 */

export type Query = (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export interface FakePostgrest {
  /** The value for SUPABASE_URL. */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

interface FunctionArg {
  name: string | null;
  type: string;
  mode: string;
}

const LOOKUP = `
  select p.pronargdefaults::int as ndefaults,
         (select coalesce(json_agg(json_build_object('name', x.name, 'type', format_type(x.type, null), 'mode', x.mode)
                                   order by x.ord), '[]'::json)
          from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[]),
                      p.proargnames,
                      coalesce(p.proargmodes::text[], array_fill('i'::text, array[p.pronargs::int])))
               with ordinality as x(type, name, mode, ord)) as args
  from pg_proc p join pg_namespace n on n.oid = p.pronamespace
  where n.nspname = 'public' and p.proname = $1`;

// PostgREST's status for an SQLSTATE (the subset our functions can raise).
function statusFor(code: string | undefined): number {
  if (!code) return 500;
  if (code === '42883' || code === '42P01') return 404;
  if (code === '23503' || code === '23505') return 409;
  if (code === '42501') return 403;
  if (code.startsWith('08') || code.startsWith('53')) return 503;
  if (code.startsWith('XX') || code.startsWith('58')) return 500;
  return 400;
}

const quote = (ident: string) => `"${ident.replace(/"/g, '""')}"`;

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startFakePostgrest(opts: { query: Query; serviceKey: string }): Promise<FakePostgrest> {
  const requests: RecordedRequest[] = [];

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const raw = await readBody(req);
    let body: unknown = undefined;
    try {
      body = raw === '' ? undefined : (JSON.parse(raw) as unknown);
    } catch {
      body = raw;
    }
    requests.push({ method: req.method ?? '', path: url.pathname, headers: { ...req.headers }, body });

    // The API gateway checks the key before PostgREST sees the request.
    if (req.headers.apikey !== opts.serviceKey || req.headers.authorization !== `Bearer ${opts.serviceKey}`) {
      return send(res, 401, {
        message: 'Invalid API key',
        hint: 'Double check your Supabase `anon` or `service_role` API key.',
      });
    }
    const m = /^\/rest\/v1\/rpc\/([A-Za-z_][A-Za-z0-9_]*)$/.exec(url.pathname);
    if (!m || req.method !== 'POST') {
      return send(res, 404, {
        code: 'PGRST125',
        message: `Invalid path specified in request URL`,
        details: null,
        hint: null,
      });
    }
    const profile = req.headers['content-profile'];
    if (profile !== undefined && profile !== 'public') {
      return send(res, 406, {
        code: 'PGRST106',
        message: 'The schema must be one of the following: public',
        details: null,
        hint: null,
      });
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return send(res, 400, { code: 'PGRST102', message: 'Empty or invalid json', details: null, hint: null });
    }
    const fn = m[1] ?? '';
    const args = body as Record<string, unknown>;
    const given = Object.keys(args);

    const candidates = await opts.query(LOOKUP, [fn]);
    const match = candidates
      .map((c) => {
        const all = (typeof c.args === 'string' ? JSON.parse(c.args) : c.args) as FunctionArg[];
        const inputs = all.filter((a) => a.mode === 'i' || a.mode === 'b' || a.mode === 'v');
        return { inputs, required: inputs.slice(0, inputs.length - Number(c.ndefaults)) };
      })
      .find(
        (c) =>
          given.every((g) => c.inputs.some((a) => a.name === g)) &&
          c.required.every((a) => a.name && given.includes(a.name)),
      );
    if (!match) {
      return send(res, 404, {
        code: 'PGRST202',
        message: `Could not find the function public.${fn}(${[...given].sort().join(', ')}) in the schema cache`,
        details: 'Searched for the function public.' + fn + ' with parameters ' + given.join(', '),
        hint: null,
      });
    }

    const used = match.inputs.filter((a) => a.name && given.includes(a.name));
    const call = `public.${quote(fn)}(${used.map((a) => `${quote(a.name ?? '')} := pgrst_args.${quote(a.name ?? '')}`).join(', ')})`;
    const source =
      used.length === 0
        ? `(select * from ${call}) as pgrst_call`
        : `json_to_record($1::json) as pgrst_args(${used.map((a) => `${quote(a.name ?? '')} ${a.type}`).join(', ')}),
           lateral (select * from ${call}) as pgrst_call`;
    const sql = `select coalesce(json_agg(pgrst_call), '[]'::json)::text as body from ${source}`;
    try {
      const rows = await opts.query(sql, used.length === 0 ? [] : [JSON.stringify(args)]);
      const text = String(rows[0]?.body ?? '[]');
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-range': '*/*' });
      res.end(text);
    } catch (err) {
      const e = err as { code?: string; message?: string; detail?: string; hint?: string };
      send(res, statusFor(e.code), {
        code: e.code ?? '',
        message: e.message ?? 'error',
        details: e.detail ?? null,
        hint: e.hint ?? null,
      });
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) =>
      send(res, 500, { code: '', message: String(err), details: null, hint: null }),
    );
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
