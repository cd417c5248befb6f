import type { Config } from '../config/index.js';
import type { AttachmentFetcher, IncomingAttachment, Platform } from '../contract/turn.js';
import { blobMarker } from '../net/inline-blobs.js';
import { linkedSignal } from '../net/linked-signal.js';
import { ATTACHMENT_FENCE_NOTE, fenceAttachment } from '../security/fence.js';
import { detectInjection, SCAN_CHARS, type InjectionFamily } from '../security/injection.js';
import type { Logger } from '../telemetry/logger.js';
import { formatBytes, hostFetcher, inlineFetcher, pathFetcher, PLATFORM_FILE_HOSTS } from './download.js';
import { extractText, type Extracted } from './extract.js';
import { AttachmentProblem } from './problem.js';
import { sniffKind, type FileKind } from './sniff.js';

export type AttachmentSettings = Pick<
  Config,
  | 'ATTACHMENT_MAX_TOKENS'
  | 'ATTACHMENT_MAX_BYTES'
  | 'ATTACHMENT_MAX_FILES'
  | 'ATTACHMENT_DOWNLOAD_TIMEOUT_MS'
  | 'ATTACHMENT_EXTRACT_TIMEOUT_MS'
> &
  Partial<Pick<Config, 'SLACK_API_URL' | 'DISCORD_API_URL'>>;

/** An image the model is shown (a data URL: the bytes go in the request, nowhere else). */
export interface ImageInput {
  name: string;
  /** A data URL whose base64 is a marker: the HTTP call writes the bytes there (net/inline-blobs.ts). */
  url: string;
  /** Held for as long as the turn holds this: the marker resolves while they live. */
  bytes: Uint8Array;
}

/** What a message's files became. */
export interface ReadFiles {
  /** What the model reads after the user's text (the fence note, each file fenced); '' when nothing was read. */
  text: string;
  /** Images for the model (only when it takes images). */
  images: ImageInput[];
  /** The same files as the thread's history keeps them: the text, and each image by name only. */
  historyText: string;
  /** One line per file not read, for the reply: "I could not read big.pdf: it is over the 20 MB limit." */
  problems: string[];
  /** A file's text looked like a prompt injection. */
  flagged: boolean;
  families: InjectionFamily[];
  /** Files read (text or image). */
  read: number;
}

export interface ReadInput {
  platform: Platform;
  attachments: readonly IncomingAttachment[];
  /** The adapter's fetcher (Slack's, with its token); else the platform's default. */
  fetcher?: AttachmentFetcher;
  settings: AttachmentSettings;
  /** The model takes images (MODEL_INPUT_IMAGES). */
  images: boolean;
  signal: AbortSignal;
  log: Logger;
}

/**
 * Reads a message's files one at a time (one file's bytes held at once): fetched, typed by its
 * bytes, turned into text within what is left of ATTACHMENT_MAX_TOKENS or into an image, screened
 * and fenced. A file that cannot be read gets a line for the reply; the others go on.
 */
export async function readAttachments(input: ReadInput): Promise<ReadFiles> {
  const { settings, log } = input;
  const out: ReadFiles = { text: '', images: [], historyText: '', problems: [], flagged: false, families: [], read: 0 };
  const fenced: string[] = [];
  const kept: string[] = [];
  const families = new Set<InjectionFamily>();
  let budget = settings.ATTACHMENT_MAX_TOKENS;
  const fetcher = input.fetcher ?? defaultFetcher(input.platform, settings);
  for (const [index, ref] of input.attachments.entries()) {
    const name = displayName(ref.name);
    try {
      if (index >= settings.ATTACHMENT_MAX_FILES)
        throw new AttachmentProblem('too_many', `a message may bring at most ${settings.ATTACHMENT_MAX_FILES} files`);
      if (ref.size !== undefined && ref.size > settings.ATTACHMENT_MAX_BYTES)
        throw new AttachmentProblem('too_large', `it is over the ${formatBytes(settings.ATTACHMENT_MAX_BYTES)} limit`);
      const bytes = await timed(
        input.signal,
        settings.ATTACHMENT_DOWNLOAD_TIMEOUT_MS,
        'it took too long to download',
        (signal) => fetcher.fetch(ref, { maxBytes: settings.ATTACHMENT_MAX_BYTES, signal }),
      );
      const kind = await sniffKind(bytes);
      if (kind.kind === 'image') {
        out.read++;
        if (input.images) {
          // The base64 is written into the request as it goes out (net/inline-blobs.ts), never built whole.
          out.images.push({ name, url: `data:${kind.mime};base64,${blobMarker(bytes)}`, bytes });
          fenced.push(`[The user shared an image, ${name}; it follows this message.]`);
          kept.push(`[The user shared an image, ${name}; it is not kept, so it cannot be seen again.]`);
        } else {
          const note = `[The user shared an image, ${name}, that you cannot see: this model does not take images. Tell the user so if they ask about it.]`;
          fenced.push(note);
          kept.push(note);
        }
        continue;
      }
      if (budget <= 0)
        throw new AttachmentProblem(
          'too_large',
          `the files before it used all ${settings.ATTACHMENT_MAX_TOKENS.toLocaleString('en-US')} tokens a message's files may add`,
        );
      const extracted = await timed(
        input.signal,
        settings.ATTACHMENT_EXTRACT_TIMEOUT_MS,
        'reading it took too long',
        (signal) => extractText(kind, bytes, budget, signal),
      );
      budget -= extracted.tokens;
      const verdict = screen(extracted.text);
      if (verdict.flagged) {
        out.flagged = true;
        for (const f of verdict.families) families.add(f);
        log.warn(
          { file: name, families: verdict.families, score: verdict.score },
          'a shared file looked like a prompt injection; read fenced',
        );
      }
      const block = fenceAttachment(name, typeName(kind), withTruncation(extracted), verdict.flagged);
      fenced.push(block);
      kept.push(block);
      out.read++;
    } catch (err) {
      if (input.signal.aborted) throw err;
      const problem =
        err instanceof AttachmentProblem
          ? err
          : new AttachmentProblem('damaged', 'it could not be read', { cause: err });
      // Never the error's own text in chat: it may hold a URL or a path.
      log.warn(
        {
          err: err instanceof AttachmentProblem ? undefined : err,
          file: name,
          kind: problem.kind,
          platform: input.platform,
        },
        'a shared file was not read',
      );
      out.problems.push(`I could not read ${name}: ${problem.reason}.`);
    }
  }
  out.families = [...families];
  if (fenced.length || out.problems.length) {
    const problems = out.problems.length ? [`[Files not read: ${out.problems.join(' ')}]`] : [];
    out.text = [ATTACHMENT_FENCE_NOTE, ...fenced, ...problems].join('\n');
    out.historyText = [ATTACHMENT_FENCE_NOTE, ...kept, ...problems].join('\n');
  }
  return out;
}

function defaultFetcher(platform: Platform, settings: AttachmentSettings): AttachmentFetcher {
  if (platform === 'http') return inlineFetcher;
  if (platform === 'console') return pathFetcher;
  const configured = platform === 'slack' ? settings.SLACK_API_URL : settings.DISCORD_API_URL;
  return hostFetcher([...(PLATFORM_FILE_HOSTS[platform] ?? []), ...(configured ? [new URL(configured).hostname] : [])]);
}

/** `fn` within `ms` (and the turn's signal); past it, a problem that names the wait. */
async function timed<T>(
  parent: AbortSignal,
  ms: number,
  reason: string,
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const link = linkedSignal([parent], ms);
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // Stop the work too, not only the wait for it (an extraction checks its signal).
      link.abort(new AttachmentProblem('timeout', reason));
      reject(new AttachmentProblem('timeout', reason));
    }, ms);
  });
  try {
    return await Promise.race([fn(link.signal), expired]);
  } catch (err) {
    if (link.signal.aborted && !parent.aborted) throw new AttachmentProblem('timeout', reason, { cause: err });
    throw err;
  } finally {
    clearTimeout(timer);
    link.dispose();
  }
}

/** The detector reads the start of a text; a long file is screened in pieces. */
function screen(text: string): { flagged: boolean; families: InjectionFamily[]; score: number } {
  const families = new Set<InjectionFamily>();
  let score = 0;
  for (let at = 0; at < text.length; at += SCAN_CHARS) {
    const verdict = detectInjection(text.slice(at, at + SCAN_CHARS));
    score = Math.max(score, verdict.score);
    if (verdict.flagged) for (const f of verdict.families) families.add(f);
    if (verdict.flagged && families.size === 0) families.add('learned');
  }
  return { flagged: families.size > 0, families: [...families], score };
}

function withTruncation(e: Extracted): string {
  return e.truncated ? `${e.text}\n${e.truncated}` : e.text;
}

function typeName(kind: Exclude<FileKind, { kind: 'image' }>): string {
  switch (kind.kind) {
    case 'pdf':
      return 'PDF';
    case 'docx':
      return 'Word document';
    case 'table':
      return kind.delimiter === '\t' ? 'TSV table' : 'CSV table';
    case 'text':
      return 'text';
  }
}

/** The file's name as shown (no path, no control characters, at most 100 characters). */
function displayName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const clean = base
    .replace(/[\p{Cc}\p{Cf}]/gu, '')
    .trim()
    .slice(0, 100);
  return clean || 'a file';
}
