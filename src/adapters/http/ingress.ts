import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Hono } from 'hono';
import type { Logger } from '../../logger.js';
import type { FromIngress, IngressConfig, ToIngress } from './ingress-worker.js';
import { startHttpServer, type NodeRoute } from './server.js';
import { yieldOtherThreads, type TurnPriority } from './thread-priority.js';

/** A request the ingress verified with Bolt and already acked: what Bolt's receivers hand to `App.processEvent`. */
export interface SlackIngressEvent {
  body: Record<string, unknown>;
  retryNum?: number;
  retryReason?: string;
}

/** What the Slack adapter (HTTP mode) offers the ingress. */
export interface SlackIngressTarget {
  /** `/slack/events`; other `/slack/…` requests get a 404. */
  path: string;
  signingSecret: string;
  /** Resolves once the adapter takes events (auth.test passed); until then Slack gets a 503 and retries. */
  ready: Promise<void>;
  /** Runs on the main thread, after Slack has its ack. */
  receive(event: SlackIngressEvent): void;
}

export interface IngressOptions {
  /** The HTTP API, served by the main thread behind the ingress. */
  app: Hono;
  port: number;
  host: string;
  slack: SlackIngressTarget;
  log: Logger;
  /** Other raw routes for the main thread's server. */
  routes?: NodeRoute[];
  /**
   * CPU priority of every other thread of the process once the ingress listens (the main
   * thread's turns, GC helpers, the libuv pool): `idle` (SCHED_IDLE) or a nice value 1–19.
   * When the CPUs are busy the kernel then runs the ingress first, so acks do not queue behind
   * turn work. 0 or unset: no change. Linux only (elsewhere it is logged and skipped). One-way:
   * the process cannot raise it back.
   */
  turnPriority?: TurnPriority;
  /** How long close() lets proxied requests (an SSE answer) finish. Default 10 s. */
  drainTimeoutMs?: number;
  /**
   * The ingress thread stopped on its own: nothing acks Slack any more. Default: log it and
   * exit the process with 1, so that the orchestrator restarts it.
   */
  onExit?: (code: number) => void;
}

export interface RunningIngress {
  url: string;
  worker: Worker;
  /** Resolves when the ingress takes Slack's requests (the adapter is ready and the thread knows it). */
  slackReady: Promise<void>;
  /** Stops accepting, lets requests in flight finish (up to `drainTimeoutMs`), ends the thread and the main thread's server. */
  close(): Promise<void>;
}

/**
 * The public HTTP server in its own thread (the "ingress"): Slack's events are verified and
 * acked there however busy the main thread is, then dispatched to the main thread's Bolt app;
 * everything else is proxied to the main thread's server on a loopback port.
 */
export async function startIngress(opts: IngressOptions): Promise<RunningIngress> {
  const log = opts.log.child({ component: 'ingress' });
  const internal = await startHttpServer(opts.app, 0, '127.0.0.1', opts.routes);
  const config: IngressConfig = {
    port: opts.port,
    host: opts.host,
    upstream: { host: '127.0.0.1', port: Number(new URL(internal.url).port) },
    slack: { path: opts.slack.path, signingSecret: opts.slack.signingSecret },
  };
  let worker: Worker;
  try {
    worker = spawnWorker(config);
  } catch (err) {
    await internal.close();
    throw err;
  }
  let closing = false;
  let closed: () => void = () => undefined;
  const whenClosed = new Promise<void>((resolve) => (closed = resolve));
  let listening!: (at: { port: number; tid?: number }) => void;
  let failed!: (err: Error) => void;
  const started = new Promise<{ port: number; tid?: number }>((resolve, reject) => ((listening = resolve), (failed = reject)));
  let markSlackReady: () => void = () => undefined;
  const whenSlackReady = new Promise<void>((resolve) => (markSlackReady = resolve));

  worker.on('message', (message: FromIngress) => {
    switch (message.type) {
      case 'slack':
        opts.slack.receive({ body: message.body, retryNum: message.retryNum, retryReason: message.retryReason });
        return;
      case 'log':
        log[message.level]({ ...message.fields }, message.msg);
        return;
      case 'listening':
        listening({ port: message.port, tid: message.tid });
        return;
      case 'listen-failed':
        failed(Object.assign(new Error(`HTTP server could not listen on ${opts.host}:${opts.port}: ${message.message}`), { code: message.code }));
        return;
      case 'slack-ready':
        markSlackReady();
        return;
      case 'closed':
        closed();
        return;
    }
  });
  worker.on('error', (err) => log.error({ err }, 'http ingress thread failed'));
  worker.once('exit', (code) => {
    closed();
    failed(new Error(`the HTTP ingress thread exited (${code}) before listening`));
    if (closing) return;
    if (opts.onExit) return opts.onExit(code);
    log.fatal({ code }, 'http ingress thread stopped: Slack is no longer acked; exiting so the service restarts');
    process.exit(1);
  });

  let port: number;
  try {
    const at = await started;
    port = at.port;
    if (opts.turnPriority) await yieldToIngress(at.tid, opts.turnPriority, log);
  } catch (err) {
    closing = true;
    await worker.terminate();
    await internal.close();
    throw err;
  }
  void opts.slack.ready.then(() => {
    if (!closing) worker.postMessage({ type: 'slack-ready' } satisfies ToIngress);
  });
  const shownHost = opts.host === '0.0.0.0' || opts.host === '::' ? '127.0.0.1' : opts.host;
  return {
    url: `http://${shownHost}:${port}`,
    worker,
    slackReady: whenSlackReady,
    async close() {
      if (closing) return;
      closing = true;
      worker.postMessage({ type: 'close', graceMs: opts.drainTimeoutMs ?? 10_000 } satisfies ToIngress);
      // Every message the thread posted before `closed` (acked Slack events) has been delivered by now.
      const grace = new Promise<void>((resolve) => setTimeout(resolve, (opts.drainTimeoutMs ?? 10_000) + 2_000).unref());
      await Promise.race([whenClosed, grace]);
      await worker.terminate();
      await internal.close();
    },
  };
}

/** Lowers every other thread's CPU priority below the ingress thread's, and says so once. */
async function yieldToIngress(tid: number | undefined, priority: TurnPriority, log: Logger): Promise<void> {
  const done = tid === undefined ? undefined : await yieldOtherThreads(tid, priority);
  if (!done) {
    log.info({ turnPriority: priority }, 'TURN_PRIORITY not applied: this system does not list threads (Linux /proc); acks and turns share one CPU priority');
    return;
  }
  const { applied, ...counts } = done;
  const label = applied === 'idle' ? 'idle' : `nice ${applied.nice}`;
  const shown = applied === 'idle' ? 'the idle scheduling policy' : label;
  const fields = { turnPriority: priority, applied: label, pid: process.pid, ingressTid: tid, ...counts };
  if (done.fallback) log.warn(fields, `TURN_PRIORITY=idle not available (${done.fallback}); turn work runs at ${shown} instead`);
  else if (done.failed) log.warn(fields, `TURN_PRIORITY applied to only some threads (${shown})`);
  else log.info(fields, `turn work runs at ${shown}; the ingress thread that acks Slack keeps its priority`);
}

/**
 * The ingress thread. From TypeScript sources (tsx, vitest) it needs tsx's loader, and Node 20
 * does not apply `--import` hooks given in a worker's `execArgv` (nodejs/node#47747): so a
 * two-line entry registers tsx's require hook in the thread, then loads the `.ts` file.
 * Compiled (`dist/`), the `.js` file is the entry.
 */
function spawnWorker(config: IngressConfig): Worker {
  const self = fileURLToPath(import.meta.url);
  const entry = self.replace(/ingress\.(ts|js)$/, 'ingress-worker.$1');
  if (!entry.endsWith('.ts')) return new Worker(entry, { workerData: config });
  const tsx = createRequire(import.meta.url).resolve('tsx/cjs/api');
  return new Worker(`require(${JSON.stringify(tsx)}).register();\nrequire(${JSON.stringify(entry)});`, { eval: true, workerData: config });
}
