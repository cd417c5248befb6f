import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { CspDirectives } from '../page-headers.js';

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/**
 * What the console's pages may load: their own stylesheet, nothing else. No script at all (the
 * console works without JavaScript), no frame, forms post only to this server.
 */
export const CONTENT_SECURITY_POLICY = {
  defaultSrc: ["'none'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
} satisfies CspDirectives;

export const NAV = [
  ['overview', 'Overview'],
  ['turns', 'Turns'],
  ['tenants', 'Tenants'],
  ['memory', 'Memory'],
  ['health', 'Health'],
] as const;
export type PageName = (typeof NAV)[number][0];

/** The page shell: skip link, navigation (the current page marked), sign-out, the content. */
export function page(opts: { title: string; current?: PageName; csrf?: string; body: Html }): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${opts.title} · Switchboard console</title>
        <link rel="stylesheet" href="/admin/console.css" />
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="top">
          <span class="brand">Switchboard</span>
          ${
            opts.current
              ? html`<nav aria-label="Console">
                    <ul>
                      ${NAV.map(
                        ([name, label]) =>
                          html`<li>
                            <a href="/admin/${name}" ${name === opts.current ? html` aria-current="page"` : ''}
                              >${label}</a
                            >
                          </li>`,
                      )}
                    </ul>
                  </nav>
                  <form method="post" action="/admin/logout" class="signout">
                    <input type="hidden" name="csrf" value="${opts.csrf ?? ''}" />
                    <button type="submit">Sign out</button>
                  </form>
                  <form method="post" action="/admin/logout/everywhere" class="signout">
                    <input type="hidden" name="csrf" value="${opts.csrf ?? ''}" />
                    <button type="submit">Sign out everywhere</button>
                  </form>`
              : ''
          }
        </header>
        <main id="main">
          <h1>${opts.title}</h1>
          ${opts.body}
        </main>
      </body>
    </html>`;
}

/** The stylesheet (served at /admin/console.css): readable on a laptop and a phone, visible focus. */
export const CONSOLE_CSS = `
:root { color-scheme: light; --fg: #1a1a1a; --muted: #555; --line: #d0d0d0; --accent: #0b5fad; --bg: #fff; --soft: #f4f6f8; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--accent); }
:focus-visible { outline: 3px solid #ffbf47; outline-offset: 2px; }
.skip { position: absolute; left: -9999px; }
.skip:focus { left: 8px; top: 8px; background: #fff; padding: 6px 10px; z-index: 10; }
.top { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 20px; padding: 10px 20px; background: #14213d; color: #fff; }
.top a { color: #fff; text-decoration: none; padding: 4px 2px; }
.top a[aria-current="page"] { border-bottom: 3px solid #ffbf47; font-weight: 600; }
.brand { font-weight: 700; letter-spacing: .02em; }
.top nav ul { display: flex; flex-wrap: wrap; gap: 4px 16px; list-style: none; margin: 0; padding: 0; }
.signout { margin-left: auto; }
.signout + .signout { margin-left: 8px; }
main { padding: 16px 20px 40px; max-width: 1200px; }
h1 { font-size: 1.5rem; margin: 8px 0 12px; }
h2 { font-size: 1.15rem; margin: 24px 0 8px; }
.headline { font-size: 1.2rem; margin: 4px 0 16px; }
.muted { color: var(--muted); }
.table-wrap { overflow-x: auto; border: 1px solid var(--line); border-radius: 6px; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid var(--line); vertical-align: top; white-space: nowrap; }
th { background: var(--soft); font-weight: 600; }
tbody th { background: none; }
td.num, th.num { text-align: right; }
tr:last-child td, tbody tr:last-child th { border-bottom: 0; }
form.filters, form.inline, form.period { display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: end; margin: 8px 0 12px; }
form.inline { display: inline-flex; margin: 0; }
label { display: flex; flex-direction: column; font-size: .85rem; color: var(--muted); gap: 2px; }
input, select, button { font: inherit; padding: 5px 8px; border: 1px solid #888; border-radius: 4px; background: #fff; color: var(--fg); }
button { cursor: pointer; background: var(--soft); }
button.primary { background: var(--accent); color: #fff; border-color: var(--accent); }
button.danger { color: #a40000; border-color: #a40000; }
.top button { background: transparent; color: #fff; border-color: #fff; }
.badge { display: inline-block; padding: 0 6px; border-radius: 10px; font-size: .8rem; border: 1px solid; }
.badge.answered { color: #0a6b2b; border-color: #0a6b2b; }
.badge.refused { color: #8a5a00; border-color: #8a5a00; }
.badge.failed { color: #a40000; border-color: #a40000; }
.badge.flag { color: #6b2a8a; border-color: #6b2a8a; }
.ok { color: #0a6b2b; font-weight: 600; }
.bad { color: #a40000; font-weight: 600; }
.notice { border-left: 4px solid var(--accent); background: var(--soft); padding: 8px 12px; margin: 8px 0 16px; }
.notice.error { border-color: #a40000; }
.secret { font-family: ui-monospace, monospace; word-break: break-all; background: #fff; border: 1px dashed #888; padding: 6px; display: block; }
.chart { width: 100%; height: auto; max-width: 900px; display: block; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 16px; list-style: none; padding: 0; margin: 6px 0 0; }
.charts { display: grid; grid-template-columns: 1fr; gap: 8px; }
.charts figure { margin: 0; }
.satisfaction { display: grid; grid-template-columns: repeat(auto-fit, minmax(260px, 1fr)); gap: 8px; }
q.comment { white-space: pre-wrap; }
.pager { display: flex; gap: 16px; margin: 12px 0; }
.signin { max-width: 360px; }
.signin form { display: flex; flex-direction: column; gap: 12px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
@media (max-width: 600px) {
  main { padding: 12px; }
  .signout { margin-left: 0; }
  th, td { padding: 5px 6px; }
}
`;
