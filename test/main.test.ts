import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFakeOpenAI } from './fakes/openai-server.js';
import { postEvent } from './fakes/slack/signing.js';
import { startFakeSlack } from './fakes/slack/web-api.js';
import { freePort } from './helpers/free-port.js';

// As `npm start` runs it: one process, tsx as a loader (its CLI would add a second process).
const TSX = [process.execPath, '--import', 'tsx', 'src/main.ts'];

function run(
  env: Record<string, string>,
  until?: (out: string) => boolean,
  timeoutMs = 40_000,
  withChild?: (child: ChildProcess) => void,
) {
  return new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(TSX[0]!, TSX.slice(1), {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      cwd: process.cwd(),
    });
    withChild?.(child);
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      if (until?.(out)) child.kill('SIGTERM');
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

describe('npm start', () => {
  it('exits 2 naming OPENAI_API_KEY / OPENAI_BASE_URL when no LLM is configured', async () => {
    const { code, out } = await run({});
    expect(code).toBe(2);
    expect(out).toContain('OPENAI_API_KEY / OPENAI_BASE_URL');
    expect(out).not.toMatch(/\n\s+at /);
  });

  it('exits 2 naming a bad variable', async () => {
    const { code, out } = await run({ OPENAI_API_KEY: 'sk-x', PORT: 'eighty' });
    expect(code).toBe(2);
    expect(out).toMatch(/PORT: .*eighty/);
  });

  it('exits 2 naming ADMIN_TOKEN when it is shorter than 32 characters, and how to make one', async () => {
    const { code, out } = await run({ OPENAI_API_KEY: 'sk-x', ADMIN_TOKEN: 'abc12' });
    expect(code).toBe(2);
    expect(out).toContain('ADMIN_TOKEN: is shorter than 32 characters; make one with `openssl rand -hex 32`');
    expect(out).not.toContain('abc12');
    expect(out).not.toMatch(/\n\s+at /);
  });

  it('starts on the embedded defaults and answers /healthz and /api/chat', async () => {
    const llm = await startFakeOpenAI();
    llm.script({ text: 'Hello from the fake model.' });
    const port = await freePort();
    let health: unknown;
    let chat: unknown;
    let listening!: () => void;
    const up = new Promise<void>((r) => (listening = r));
    const exited = run(
      {
        OPENAI_API_KEY: 'sk-main-test',
        OPENAI_BASE_URL: llm.url,
        PORT: String(port),
        PGLITE_MEMORY: '1',
        LOG_LEVEL: 'info',
      },
      (o) => {
        if (o.includes('Switchboard listening')) listening();
        return false;
      },
      90_000,
      (child) =>
        void up.then(async () => {
          health = await (await fetch(`http://127.0.0.1:${port}/healthz`)).json();
          const res = await fetch(`http://127.0.0.1:${port}/api/chat`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ message: 'hi' }),
          });
          chat = await res.json();
          child.kill('SIGTERM');
        }),
    );
    const { code, out } = await exited;
    await llm.close();
    expect(out).not.toContain('sk-main-test');
    // The startup line names the model and its endpoint (and never the key).
    expect(out).toContain(`LLM: gpt-4o-mini at ${new URL(llm.url).origin}`);
    expect(health).toMatchObject({ ok: true, data: 'pglite' });
    expect(chat).toMatchObject({ response: 'Hello from the fake model.' });
    expect(code).toBe(0); // graceful shutdown on SIGTERM
  }, 120_000);

  it('runs Slack over HTTP on the shared server: verifies, acks, answers once, serves the API, stops cleanly', async () => {
    const llm = await startFakeOpenAI();
    const slack = await startFakeSlack({ botUserId: 'U0MAINBOT' });
    const secret = 'main-test-signing-secret';
    llm.script({ text: 'Hello over the Events API.' });
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const results: Record<string, unknown> = {};
    // What Slack and an API client see once it is up (errors are recorded, so the child is always stopped).
    const talkToIt = async () => {
      const challenge = await postEvent(
        `${base}/slack/events`,
        { type: 'url_verification', challenge: 'c-42', token: 'x' },
        { secret },
      );
      results.challenge = await challenge.json();
      results.forged = (
        await postEvent(`${base}/slack/events`, { type: 'event_callback' }, { secret: 'wrong' })
      ).status;
      const ts = '1900000000.000100';
      const event = {
        type: 'app_mention',
        user: 'U0HUMAN1',
        ts,
        event_ts: ts,
        text: '<@U0MAINBOT> hi',
        channel: 'C0MAIN',
        team: 'T0FAKETEAM',
      };
      const body = {
        token: 'x',
        team_id: 'T0FAKETEAM',
        api_app_id: 'A0',
        type: 'event_callback',
        event_id: 'Ev0MAIN1',
        event_time: 1,
        event,
      };
      results.ack = (await postEvent(`${base}/slack/events`, body, { secret })).status;
      await slack.waitFor(
        () => slack.threadReplies('C0MAIN', ts).some((m) => m.text === 'Hello over the Events API.'),
        'the answer in Slack',
        20_000,
      );
      results.reply = slack.threadReplies('C0MAIN', ts).map((m) => m.text);
      results.health = await (await fetch(`${base}/healthz`)).json();
    };
    let listening!: () => void;
    const up = new Promise<void>((r) => (listening = r));
    const exited = run(
      {
        OPENAI_API_KEY: 'sk-main-test',
        OPENAI_BASE_URL: llm.url,
        PORT: String(port),
        PGLITE_MEMORY: '1',
        LOG_LEVEL: 'info',
        SLACK_BOT_TOKEN: slack.options.botToken,
        SLACK_SIGNING_SECRET: secret,
        SLACK_API_URL: slack.url,
      },
      (o) => {
        if (o.includes('Switchboard listening')) listening();
        return false;
      },
      90_000,
      (child) =>
        void up.then(async () => {
          await talkToIt().catch((err: unknown) => (results.error = String(err)));
          child.kill('SIGTERM');
        }),
    );
    const { code, out } = await exited;
    if (results.error) console.log(out);
    await slack.close();
    await llm.close();
    expect(results).toEqual({
      challenge: { challenge: 'c-42' },
      forged: 401,
      ack: 200,
      reply: ['Hello over the Events API.'],
      health: { ok: true, data: 'pglite', inbox: 'memory', adapters: ['slack'] },
    });
    expect(out).not.toContain(secret);
    expect(out).not.toContain(slack.options.botToken);
    expect(code).toBe(0);
  }, 120_000);

  for (const fault of ['uncaught_exception', 'unhandled_rejection'] as const) {
    it(`an error that escapes every handler (${fault}) is logged with its code, drained and exits 1`, async () => {
      const port = await freePort();
      let ready: unknown;
      const { code, out } = await run(
        {
          OPENAI_API_KEY: 'sk-x',
          OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
          PORT: String(port),
          PGLITE_MEMORY: '1',
          LOG_LEVEL: 'info',
          NODE_OPTIONS: '--import ./test/helpers/fault-on-signal.mjs',
          ...(fault === 'unhandled_rejection' ? { FAULT: 'rejection' } : {}),
        },
        undefined,
        90_000,
        (child) => {
          let sent = false;
          child.stdout!.on('data', (d: Buffer) => {
            if (sent || !d.toString().includes('Switchboard listening')) return;
            sent = true;
            void (async () => {
              ready = (await fetch(`http://127.0.0.1:${port}/readyz`)).status;
              child.kill('SIGUSR2');
            })();
          });
        },
      );
      expect(ready).toBe(200);
      const fatal = out.split('\n').find((l) => l.includes(`"code":"${fault}"`));
      expect(fatal, out).toBeDefined();
      expect(JSON.parse(fatal!)).toMatchObject({ level: 60 });
      expect(out).toContain('"msg":"shutting down"');
      expect(code).toBe(1);
    }, 120_000);
  }

  it('npm start passes SIGTERM on: the bot shuts down and frees its port (npm does not signal a shell’s child)', async () => {
    const port = await freePort();
    const child = spawn('npm', ['start', '--silent'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        OPENAI_API_KEY: 'sk-x',
        OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
        PORT: String(port),
        PGLITE_MEMORY: '1',
        LOG_LEVEL: 'info',
      },
      cwd: process.cwd(),
    });
    let out = '';
    const listening = new Promise<void>((resolve) =>
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('Switchboard listening')) resolve();
      }),
    );
    const exited = once(child, 'exit');
    await listening;
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    // The bot runs with two malloc arenas (docs/performance.md, Memory) unless the operator says otherwise.
    expect(environOf(botPid(child.pid!))).toContain('MALLOC_ARENA_MAX=2');
    child.kill('SIGTERM'); // npm's own pid, as `kill -TERM` of what `npm start` printed would
    await exited;
    // The bot itself stops: its port refuses connections within the drain window.
    const until = Date.now() + 20_000;
    let refused = false;
    while (!refused && Date.now() < until) {
      refused = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        () => false,
        () => true,
      );
      if (!refused) await new Promise((r) => setTimeout(r, 100));
    }
    expect(refused).toBe(true);
  }, 120_000);

  it('exits 2 naming PORT when the port is taken', async () => {
    const port = await freePort();
    const blocker = createServer().listen(port, '127.0.0.1');
    await once(blocker, 'listening');
    try {
      const { code, out } = await run({
        OPENAI_API_KEY: 'sk-x',
        OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
        PORT: String(port),
        HOST: '127.0.0.1',
        PGLITE_MEMORY: '1',
        LOG_LEVEL: 'silent',
      });
      expect(code).toBe(2);
      expect(out).toContain(`PORT: ${port} is already in use on 127.0.0.1`);
      expect(out).not.toMatch(/\n\s+at /);
    } finally {
      blocker.close();
    }
  }, 60_000);

  it('exits 2 naming DATABASE_URL when the database cannot be reached, and PGLITE_DIR when it is locked', async () => {
    const unreachable = await run({
      OPENAI_API_KEY: 'sk-x',
      DATABASE_URL: 'postgres://nobody:secret-pw@127.0.0.1:1/none',
      LOG_LEVEL: 'silent',
    });
    expect(unreachable.code).toBe(2);
    expect(unreachable.out).toMatch(/DATABASE_URL: cannot query the database at 127\.0\.0\.1:1/);
    expect(unreachable.out).not.toContain('secret-pw');

    const dir = await mkdtemp(join(tmpdir(), 'sb-locked-'));
    try {
      // A live process (this test runner) holds the embedded database.
      await writeFile(`${join(dir, 'db')}.pid`, String(process.pid));
      const locked = await run({ OPENAI_API_KEY: 'sk-x', PGLITE_DIR: join(dir, 'db'), LOG_LEVEL: 'silent' });
      expect(locked.code).toBe(2);
      expect(locked.out).toMatch(/PGLITE_DIR: the embedded database in .* is in use by process \d+/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

/** The node process `npm start` runs: npm's child (the shell `exec`s node in its place). */
function botPid(npmPid: number): number {
  const children = readFileSync(`/proc/${npmPid}/task/${npmPid}/children`, 'utf8').trim().split(/\s+/).map(Number);
  const node = children.find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('src/main.ts'));
  if (!node) throw new Error(`npm (${npmPid}) has no child running src/main.ts: ${children.join(', ')}`);
  return node;
}

/** A process's environment as NAME=value lines. */
function environOf(pid: number): string[] {
  return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
}
