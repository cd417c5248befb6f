/**
 * Shared files, memory and time (issue 42): a Discord message's files fetched from a loopback
 * file host (DISCORD_API_URL's host stands in for Discord's CDN), read by the real agent, sent
 * to the fake OpenAI server over HTTP (images as data URLs in the request body).
 *
 *   npx tsx bench/attachments.ts [--runs 3]
 *
 * 1. A 20 MB PDF (40 pages of text, each with a 0.5 MB image): peak RSS over idle ≤ 80 MB, and
 *    the text ready (fetched, typed, read, screened, fenced: `readAttachments`) in ≤ 3 s.
 * 2. Eight 5 MB images in one message, to a model that takes images: peak RSS over idle ≤ 100 MB.
 *
 * Each scenario runs in a child process of its own (`--expose-gc`): warmed up with a small file
 * of the same kind (pdf.js and file-type loaded), collected, then the kernel's peak-RSS mark is
 * reset (`/proc/self/clear_refs`, 5) and idle RSS read; after the turn, VmHWM is the peak. So the
 * figure is what one such turn adds to a warm process, its garbage included.
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';

const MB = 1024 * 1024;
const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    child: { type: 'string' },
    llm: { type: 'string' },
    files: { type: 'string' },
  },
});

/** A PDF of `pages` pages of text, each drawing a raw grey image of `imageBytes` bytes. */
function bigPdf(pages: number, imageBytes: number): Buffer {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const push = (b: Buffer | string) => {
    const buf = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
    parts.push(buf);
    length += buf.length;
  };
  const obj = (id: number, body: Buffer | string) => {
    offsets[id] = length;
    push(`${id} 0 obj\n`);
    push(body);
    push('\nendobj\n');
  };
  const side = Math.floor(Math.sqrt(imageBytes));
  const pageId = (i: number) => 4 + i * 3;
  push('%PDF-1.4\n');
  obj(1, '<< /Type /Catalog /Pages 2 0 R >>');
  obj(
    2,
    `<< /Type /Pages /Kids [${Array.from({ length: pages }, (_, i) => `${pageId(i)} 0 R`).join(' ')}] /Count ${pages} >>`,
  );
  obj(3, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  for (let i = 0; i < pages; i++) {
    const id = pageId(i);
    const lines = Array.from(
      { length: 40 },
      (_, l) => `(Page ${i + 1}, line ${l + 1}: quarterly revenue by region and channel.) Tj T*`,
    );
    const content = `q 200 0 0 200 50 50 cm /Im${i} Do Q BT /F1 9 Tf 11 TL 40 760 Td ${lines.join(' ')} ET`;
    obj(
      id,
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> /XObject << /Im${i} ${id + 2} 0 R >> >> /Contents ${id + 1} 0 R >>`,
    );
    obj(id + 1, `<< /Length ${content.length} >>\nstream\n${content}\nendstream`);
    const image = randomBytes(side * side);
    obj(
      id + 2,
      Buffer.concat([
        Buffer.from(
          `<< /Type /XObject /Subtype /Image /Width ${side} /Height ${side} /ColorSpace /DeviceGray /BitsPerComponent 8 /Length ${image.length} >>\nstream\n`,
          'latin1',
        ),
        image,
        Buffer.from('\nendstream', 'latin1'),
      ]),
    );
  }
  const count = pageId(pages);
  const xref = length;
  push(`xref\n0 ${count}\n0000000000 65535 f \n`);
  for (let id = 1; id < count; id++) push(`${String(offsets[id]).padStart(10, '0')} 00000 n \n`);
  push(`trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}

/** A PNG of `bytes` bytes: signature, IHDR, one IDAT of noise, IEND (the type is read from its head). */
function bigPng(bytes: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    return Buffer.concat([head, data, Buffer.alloc(4)]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(1024, 0);
  ihdr.writeUInt32BE(1024, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const sig = Buffer.from('89504e470d0a1a0a', 'hex');
  return Buffer.concat([
    sig,
    chunk('IHDR', ihdr),
    chunk('IDAT', randomBytes(bytes - 8 - 25 - 12 - 12)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function procStatus(field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync('/proc/self/status', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) * 1024;
}

async function child(scenario: 'pdf' | 'images', llmUrl: string, filesUrl: string): Promise<void> {
  const { parseConfig } = await import('../src/config/index.js');
  const { createSwitchboard } = await import('../src/wiring/app.js');
  const { createLogger } = await import('../src/telemetry/logger.js');
  const { readAttachments } = await import('../src/attachments/read.js');
  const config = parseConfig({
    OPENAI_API_KEY: 'sk-bench',
    OPENAI_BASE_URL: llmUrl,
    OPENAI_MODEL: 'gpt-4o-mini',
    OPENAI_MAX_RETRIES: '0',
    PGLITE_MEMORY: '1',
    EMBEDDING_DIMENSIONS: '8',
    USER_MESSAGES_PER_MINUTE: '0',
    DISCORD_API_URL: `${filesUrl}/api`,
    TURN_TIMEOUT_MS: '60000',
  });
  const log = createLogger('warn');
  const sb = await createSwitchboard(config, log);
  const names = scenario === 'pdf' ? ['report.pdf'] : Array.from({ length: 8 }, (_, i) => `photo-${i + 1}.png`);
  let n = 0;
  const turn = async (files: string[]) => {
    const message = {
      platform: 'discord' as const,
      workspaceId: 'g1',
      channelId: 'c1',
      threadId: `t${++n}`,
      messageId: `m${n}`,
      userId: 'u1',
      role: 'member' as const,
      isDirect: false,
      text: 'What do these show?',
      attachments: files.map((name) => ({
        name,
        mediaType: 'application/octet-stream',
        source: { kind: 'url' as const, url: `${filesUrl}/${name}` },
      })),
    };
    const started = performance.now();
    for await (const e of sb.agent.handle(message)) if (e.type === 'error') throw new Error(e.message);
    return performance.now() - started;
  };
  await turn([scenario === 'pdf' ? 'small.pdf' : 'small.png']);
  globalThis.gc?.();
  await new Promise((r) => setTimeout(r, 300));
  globalThis.gc?.();
  writeFileSync('/proc/self/clear_refs', '5');
  const idle = procStatus('VmRSS');
  const turnMs = await turn(names);
  const peak = procStatus('VmHWM');
  let readMs: number | undefined;
  if (scenario === 'pdf') {
    const started = performance.now();
    const read = await readAttachments({
      platform: 'discord',
      attachments: [
        { name: 'report.pdf', mediaType: 'application/pdf', source: { kind: 'url', url: `${filesUrl}/report.pdf` } },
      ],
      settings: config,
      images: true,
      signal: new AbortController().signal,
      log,
    });
    readMs = performance.now() - started;
    if (read.problems.length) throw new Error(read.problems.join(' '));
  }
  process.send!({ idle, peak, turnMs, readMs });
  await sb.close();
}

async function parent(): Promise<void> {
  const { startFakeOpenAI } = await import('../test/fakes/openai-server.js');
  const runs = Number(flags.runs);
  const served: Record<string, Buffer> = {
    '/report.pdf': bigPdf(40, 500_000),
    '/small.pdf': bigPdf(2, 10_000),
    '/small.png': bigPng(50_000),
  };
  for (let i = 1; i <= 8; i++) served[`/photo-${i}.png`] = bigPng(5 * MB);
  const host = createServer((req, res) => {
    const body = served[req.url ?? ''];
    if (!body) return res.writeHead(404).end();
    res.writeHead(200, { 'content-length': body.length }).end(body);
  });
  await new Promise<void>((r) => host.listen(0, '127.0.0.1', r));
  const filesUrl = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
  const llm = await startFakeOpenAI({ lenient: true });
  console.log(
    `attachments: report.pdf ${(served['/report.pdf']!.length / MB).toFixed(1)} MB (40 pages); 8 × ${(served['/photo-1.png']!.length / MB).toFixed(1)} MB PNG; node ${process.version}, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  for (const scenario of ['pdf', 'images'] as const) {
    const rows: { idle: number; peak: number; turnMs: number; readMs?: number }[] = [];
    for (let run = 0; run < runs; run++) {
      const proc = fork(new URL(import.meta.url), ['--child', scenario, '--llm', llm.url, '--files', filesUrl], {
        execArgv: ['--import', 'tsx', '--expose-gc'],
      });
      const report = await new Promise<(typeof rows)[number]>((resolve, reject) => {
        proc.once('message', (m) => resolve(m as (typeof rows)[number]));
        proc.once('exit', (code) => reject(new Error(`child exited ${code}`)));
      });
      proc.removeAllListeners('exit');
      await new Promise((r) => proc.once('exit', r));
      rows.push(report);
      const over = (report.peak - report.idle) / MB;
      console.log(
        `  ${scenario} run ${run + 1}: idle ${(report.idle / MB).toFixed(0)} MB, peak ${(report.peak / MB).toFixed(0)} MB, over idle ${over.toFixed(0)} MB (target ≤ ${scenario === 'pdf' ? 80 : 100}); turn ${report.turnMs.toFixed(0)} ms${report.readMs !== undefined ? `; text ready in ${report.readMs.toFixed(0)} ms (target ≤ 3000)` : ''}`,
      );
    }
    const overs = rows.map((r) => (r.peak - r.idle) / MB);
    console.log(
      `${scenario}: peak over idle ${Math.min(...overs).toFixed(0)}–${Math.max(...overs).toFixed(0)} MB over ${runs} runs`,
    );
  }
  await llm.close();
  host.close();
}

if (flags.child) await child(flags.child as 'pdf' | 'images', flags.llm!, flags.files!);
else await parent();
