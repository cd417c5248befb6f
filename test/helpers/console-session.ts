import { Hono } from 'hono';
import { mountConsole } from '../../src/adapters/http/admin-console/index.js';

/**
 * The operator console mounted on a bare Hono app (or the given one, e.g. the HTTP API's), signed
 * in as a browser would: the login form's CSRF token and the session cookie. `get` and `post` (a
 * form) send the session with each request; `app` answers requests without it.
 */
export async function signedInConsole(
  deps: Parameters<typeof mountConsole>[1],
  app: Hono = new Hono(),
): Promise<{
  get(path: string): Promise<Response>;
  post(path: string, form: Record<string, string>): Promise<Response>;
  app: Hono;
}> {
  mountConsole(app, deps);
  const cookies = new Map<string, string>();
  const take = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [name, value] = c.split(';')[0]!.split('=') as [string, string];
      cookies.set(name, value);
    }
  };
  const cookie = () => ({ cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') });
  const login = await app.request('/admin/login');
  take(login);
  const csrf = /name="csrf"\s+value="([^"]+)"/.exec(await login.text())?.[1] ?? '';
  take(
    await app.request('/admin/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...cookie() },
      body: new URLSearchParams({ token: deps.adminToken ?? '', csrf }).toString(),
    }),
  );
  return {
    get: async (path) => app.request(path, { headers: cookie() }),
    post: async (path, form) =>
      app.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...cookie() },
        body: new URLSearchParams(form).toString(),
      }),
    app,
  };
}
