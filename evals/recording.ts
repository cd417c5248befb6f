import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { LlmError, type Completion, type LlmClient } from '../src/contract/llm.js';

/**
 * `--record <dir>` / `--replay <dir>`: the model's answers of each case, kept in `<dir>/<case>.json`
 * (every completion of the case's turns in order, and the embeddings of the texts its tools
 * embedded), and given back in the same order instead of the provider's. The tools, the database
 * and the scoring stay live; only the model is replaced. A replayed run is marked as one.
 */

const recordingFile = z.object({
  kind: z.literal('switchboard-eval-recording'),
  version: z.literal(1),
  case: z.string(),
  model: z.string(),
  recordedAt: z.string(),
  // Completions as the LlmClient assembled them; only the fields the loop reads are checked.
  completions: z.array(
    z.looseObject({
      content: z.string(),
      toolCalls: z.array(z.looseObject({ id: z.string(), name: z.string(), arguments: z.string() })),
      finishReason: z.string(),
    }),
  ),
  /** sha256 of an embedded text → its vector. */
  embeddings: z.record(z.string(), z.array(z.number())),
});
type Recording = z.infer<typeof recordingFile>;

interface CaseTape {
  id: string;
  completions: Completion[];
  embeddings: Record<string, number[]>;
}

const textKey = (text: string) => createHash('sha256').update(text).digest('hex');
/** A case id as a file name: `business/parking` → `business--parking.json`. */
const fileOf = (dir: string, id: string) => join(dir, `${id.replace(/[^A-Za-z0-9_-]+/g, '--')}.json`);

/** Runs `fn` as one case: the model calls inside it are the case's. */
export interface Tape {
  llm: LlmClient;
  inCase<T>(id: string, fn: () => Promise<T>): Promise<T>;
}

/** Wraps the provider's client: every completion and turn-time embedding of a case is written to `<dir>/<case>.json`. */
export function recordingTape(inner: LlmClient, dir: string): Tape {
  const current = new AsyncLocalStorage<CaseTape>();
  const llm: LlmClient = {
    get model() {
      return inner.model;
    },
    async complete(req) {
      const completion = await inner.complete(req);
      current.getStore()?.completions.push(structuredClone(completion));
      return completion;
    },
    async embed(texts, signal) {
      const vectors = await inner.embed(texts, signal);
      const tape = current.getStore();
      if (tape) texts.forEach((text, i) => (tape.embeddings[textKey(text)] = vectors[i] ?? []));
      return vectors;
    },
  };
  return {
    llm,
    async inCase(id, fn) {
      const tape: CaseTape = { id, completions: [], embeddings: {} };
      try {
        return await current.run(tape, fn);
      } finally {
        const file: Recording = {
          kind: 'switchboard-eval-recording',
          version: 1,
          case: id,
          model: inner.model,
          recordedAt: new Date().toISOString(),
          completions: tape.completions as Recording['completions'],
          embeddings: tape.embeddings,
        };
        await mkdir(dir, { recursive: true });
        await writeFile(fileOf(dir, id), `${JSON.stringify(file, null, 1)}\n`);
      }
    },
  };
}

/** The recordings' model (from any file in `dir`), for the report; undefined when there is none. */
export async function recordedModel(dir: string): Promise<string | undefined> {
  const names = (await readdir(dir).catch(() => [])).filter((n) => n.endsWith('.json')).sort();
  for (const name of names) {
    const parsed = recordingFile.safeParse(JSON.parse(await readFile(join(dir, name), 'utf8')));
    if (parsed.success) return parsed.data.model;
  }
  return undefined;
}

/**
 * Gives each case its recorded answers in order. A case without a recording, or asking for more
 * answers than were recorded, gets an `unreachable` LlmError (the user's "the model is not
 * answering"), so it fails visibly instead of being answered by something that was not recorded.
 */
export function replayTape(dir: string, model: string): Tape {
  const current = new AsyncLocalStorage<{ id: string; recording?: Recording; next: number }>();
  const missing = (what: string) => new LlmError('unreachable', `replay: ${what}`);
  const llm: LlmClient = {
    model,
    async complete(req) {
      const tape = current.getStore();
      if (!tape) throw missing('a model call outside any case');
      if (!tape.recording) throw missing(`no recording of ${tape.id} in ${dir}`);
      const completion = tape.recording.completions[tape.next++] as Completion | undefined;
      if (!completion) throw missing(`${tape.id} asks the model more often than recorded`);
      if (completion.content) req.onText?.(completion.content);
      return structuredClone(completion);
    },
    async embed(texts) {
      const recorded = current.getStore()?.recording?.embeddings ?? {};
      return texts.map((text) => {
        const vector = recorded[textKey(text)];
        if (!vector) throw missing('an embedding that was not recorded');
        return vector;
      });
    },
  };
  return {
    llm,
    async inCase(id, fn) {
      let recording: Recording | undefined;
      try {
        const parsed = recordingFile.safeParse(JSON.parse(await readFile(fileOf(dir, id), 'utf8')));
        recording = parsed.success ? parsed.data : undefined;
      } catch {
        recording = undefined;
      }
      return current.run({ id, ...(recording ? { recording } : {}), next: 0 }, fn);
    },
  };
}
