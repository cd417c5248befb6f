import { readAttachments, type AttachmentSettings, type ReadFiles } from '../attachments/read.js';
import type { TurnScope } from '../contract/extension.js';
import type { ChatMessage } from '../contract/llm.js';
import type { TurnFlag } from '../contract/turn.js';
import type { Block } from '../reply/model.js';

/** The files settings and whether the model takes images, decided once at start. */
export type TurnFilesSettings = AttachmentSettings & { images: boolean };

/**
 * A message's files (issue 42), read inside the turn: other people's words, so the turn is
 * tainted and a flagged file flags it. Undefined when the message brought none.
 */
export async function readTurnFiles(
  scope: TurnScope,
  settings: TurnFilesSettings,
  flags: TurnFlag[],
  signal: AbortSignal,
): Promise<ReadFiles | undefined> {
  const { message, log } = scope;
  if (!message.attachments?.length) return undefined;
  const files = await readAttachments({
    platform: message.platform,
    attachments: message.attachments,
    ...(message.attachmentFetcher ? { fetcher: message.attachmentFetcher } : {}),
    settings,
    images: settings.images,
    signal,
    log,
  });
  if (files.read > 0) {
    scope.tainted = true;
    scope.taintedBy = [...(scope.taintedBy ?? []), 'attachment'];
  }
  if (files.flagged) flags.push('attachment_injection');
  log.debug(
    {
      files: message.attachments.length,
      read: files.read,
      images: files.images.length,
      problems: files.problems.length,
    },
    'shared files read',
  );
  return files;
}

/** The user's message as the model reads it: the text, the fenced files after it, then the images. */
export function userMessage(text: string, files: ReadFiles | undefined): ChatMessage {
  if (!files?.text) return { role: 'user', content: text };
  const combined = text.trim() ? `${text}\n\n${files.text}` : files.text;
  if (!files.images.length) return { role: 'user', content: combined };
  return {
    role: 'user',
    content: [
      { type: 'text', text: combined },
      ...files.images.map((image) => ({ type: 'image_url' as const, image_url: { url: image.url } })),
    ],
  };
}

/** The user's message as the thread's history keeps it: the files' text, images by name only. */
export function historyText(text: string, files: ReadFiles | undefined): string {
  if (!files?.historyText) return text;
  return text.trim() ? `${text}\n\n${files.historyText}` : files.historyText;
}

/** The reply's line for each file not read (a context block after the answer). */
export function withFileProblems(blocks: Block[], files: ReadFiles | undefined): Block[] {
  if (!files?.problems.length) return blocks;
  return [...blocks, { type: 'context', items: files.problems }];
}
