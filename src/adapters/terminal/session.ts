import { randomUUID } from 'node:crypto';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { Agent } from '../../agent/agent.js';
import { expiryAction } from '../../agent/approval-sweep.js';
import type { IncomingAttachment, IncomingMessage } from '../../contract/turn.js';
import type { Button, Reply } from '../../reply/model.js';
import { renderPlainText, replyButtons } from '../../reply/plain-text.js';
import { parseTypedCommand } from '../typed-command.js';
import { feedbackThanks, type FeedbackValue } from '../../contract/feedback.js';
import { createLineRenderer, PLAIN_STYLE, renderTerminalMarkdown, type TerminalStyle } from './terminal-markdown.js';

export interface ConsoleOutput {
  write(text: string): void;
}

/**
 * One terminal conversation in one thread. Typing `:N` clicks button N of the last reply;
 * files are saved under `filesDir` and their paths printed. The model's Markdown is rendered
 * line by line as it streams (`style`: ANSI on a terminal, plain text elsewhere).
 */
export function createTerminalSession(
  agent: Agent,
  out: ConsoleOutput,
  opts: {
    filesDir: string;
    threadId?: string;
    /** The console workspace (a tenant's slug, e.g. `harbourside`); default: the default tenant. */
    workspaceId?: string;
    /** ANSI on a terminal, plain text elsewhere (default: plain). */
    style?: TerminalStyle;
    /** APPROVAL_TIMEOUT: the y/n prompt gives up after this long; the call expires and the model is told (unset: it waits). */
    approvalTimeoutMs?: number;
    /** Runs `fire` after `ms` (default: a timer); returns its cancel. */
    schedule?: (fire: () => Promise<void>, ms: number) => () => void;
    /** Called after a turn nobody typed (an expired approval), e.g. to show the prompt again. */
    onUnprompted?: () => void;
  },
) {
  const threadId = opts.threadId ?? randomUUID();
  const style = opts.style ?? PLAIN_STYLE;
  const { dim } = style;
  let buttons: Button[] = [];
  /** The calls the last reply waits on (issue 43): `y` approves them, `n` denies the first. */
  let waiting: string[] = [];
  /** Files named by `/attach <path>`: they go with the next message. */
  let attached: IncomingAttachment[] = [];
  /** The last answer that asks for a vote (issue 47): `/good` and `/bad` rate it. */
  let lastAnswer: string | undefined;
  let ratingHinted = false;
  /** Cancels the y/n prompt's give-up timer. */
  let cancelGiveUp = () => {};
  /** One turn at a time: a give-up and a typed line never interleave. */
  let turns: Promise<void> = Promise.resolve();
  const serial = (fn: () => Promise<void>) => (turns = turns.then(fn, fn));
  const schedule =
    opts.schedule ??
    ((fire: () => Promise<void>, ms: number) => {
      const timer = setTimeout(() => void fire(), ms);
      timer.unref();
      return () => clearTimeout(timer);
    });

  /** Nobody answered the y/n prompt in time: the calls expire (the agent checks the time) and the model is told. */
  function armGiveUp(): void {
    cancelGiveUp();
    const ms = opts.approvalTimeoutMs;
    const [first] = waiting;
    if (ms === undefined || first === undefined) return;
    cancelGiveUp = schedule(
      () =>
        serial(async () => {
          if (waiting[0] !== first) return; // answered meanwhile
          waiting = [];
          out.write(dim('\n⌛ No answer in time: the approval expired.\n'));
          const expire = expiryAction({ id: first });
          await sendNow('', { actionId: expire.id, label: '', value: expire.value }).catch((err: unknown) =>
            out.write(
              `⚠️  The expired approval could not be answered: ${err instanceof Error ? err.message : String(err)}\n`,
            ),
          );
          opts.onUnprompted?.();
        }),
      ms,
    );
  }

  /** `/attach <path>`: the file goes with the next message (read in the turn, like a chat's file). */
  async function attach(raw: string): Promise<void> {
    const path = resolve(raw.trim().replace(/^(["'])(.*)\1$/, '$2'));
    const found = await stat(path).catch(() => undefined);
    if (!found?.isFile()) {
      out.write(`No file at ${path}.\n`);
      return;
    }
    attached.push({
      name: basename(path),
      mediaType: 'application/octet-stream',
      size: found.size,
      source: { kind: 'path', path },
    });
    out.write(dim(`📎 ${basename(path)} goes with your next message.\n`));
  }

  function send(line: string): Promise<void> {
    return serial(() => sendNow(line));
  }

  async function sendNow(line: string, forced?: Button): Promise<void> {
    const input = line.trim();
    if (!input && !forced) return;
    const attaching = /^\/attach\s+(.+)$/s.exec(input);
    if (attaching) return attach(attaching[1]!);
    const rating = forced ? null : /^\/(good|bad)(?:\s+([\s\S]+))?$/i.exec(input);
    if (rating) return rate(rating[1]!.toLowerCase() === 'good' ? 'up' : 'down', rating[2]);
    const picked = /^:(\d+)$/.exec(input);
    const yesNo = waiting.length && !forced ? /^(y|yes|n|no)$/i.exec(input) : null;
    const button = forced
      ? forced
      : yesNo
        ? approvalButton(yesNo[1]!.toLowerCase().startsWith('y'))
        : picked
          ? buttons[Number(picked[1]) - 1]
          : undefined;
    if (picked && !button) {
      out.write(`No button ${picked[1]} on the last reply.\n`);
      return;
    }
    cancelGiveUp();
    const message: IncomingMessage = {
      platform: 'console',
      workspaceId: opts.workspaceId ?? 'default',
      channelId: 'console',
      threadId,
      messageId: randomUUID(),
      userId: 'console',
      role: 'member',
      isDirect: true,
      text: button ? '' : input,
      ...(button ? { action: { id: button.actionId, value: button.value } } : {}),
      ...(!button && attached.length ? { attachments: attached } : {}),
    };
    if (!button) attached = [];
    const command = button ? undefined : parseTypedCommand(input);
    if (command) message.command = command;
    let streamed = '';
    const lines = createLineRenderer(style);
    // Whether the terminal's cursor is at the start of a line: status lines never join the answer's.
    let atLineStart = true;
    const write = (text: string) => {
      if (!text) return;
      out.write(text);
      atLineStart = text.endsWith('\n');
    };
    const endLine = () => {
      write(lines.flush());
      if (!atLineStart) write('\n');
    };
    if (!yesNo && !forced) waiting = []; // a new turn: only its own approval event asks again
    for await (const event of agent.handle(message)) {
      switch (event.type) {
        case 'status':
          endLine();
          write(dim(`… ${event.text}\n`));
          break;
        case 'text_delta':
          streamed += event.text;
          write(lines.push(event.text));
          break;
        case 'tool_event':
          // An artifact's code as it is written, dimmed: the file follows with the reply.
          if (event.name === 'artifact_delta' && typeof event.data.delta === 'string') write(dim(event.data.delta));
          break;
        case 'tool_call_start':
          endLine();
          streamed = '';
          write(dim(`  ⏳ ${event.title}\n`));
          break;
        case 'tool_result':
          endLine();
          write(dim(`  ${event.ok ? '✓' : '✗'} ${event.tool}: ${event.summary}\n`));
          break;
        case 'reply':
          write(lines.flush());
          write(`${await renderReply(event.reply, streamed)}\n`);
          buttons = replyButtons(event.reply);
          lastAnswer = event.reply.blocks.find((b) => b.type === 'feedback')?.turnId ?? lastAnswer;
          if (lastAnswer && !ratingHinted && !waiting.length) {
            ratingHinted = true;
            write(dim('(rate an answer: /good, or /bad and what was wrong)\n'));
          }
          if (waiting.length) write(dim(`Approve? (y/n)\n`));
          else if (buttons.length) write(dim('(type :N to press button N)\n'));
          break;
        case 'error':
          endLine();
          write(`⚠️  ${event.message}\n`);
          break;
        case 'approval_required':
          waiting = event.approvals.map((a) => a.id);
          break;
        case 'done':
          // The answer `/good` and `/bad` rate (also with FEEDBACK=off, when no hint is shown).
          if (event.turnId && !waiting.length) lastAnswer = event.turnId;
          break;
        default:
          break;
      }
    }
    endLine();
    armGiveUp();
  }

  /** `/good`, `/bad [comment]` (issue 47): a vote on the last answer, recorded like a chat's 👍/👎. */
  async function rate(value: FeedbackValue, comment: string | undefined): Promise<void> {
    if (!lastAnswer) {
      out.write('No answer to rate yet.\n');
      return;
    }
    const voter = { platform: 'console' as const, workspaceId: opts.workspaceId ?? 'default', userId: 'console' };
    const result = await agent.feedback({
      voter,
      turnId: lastAnswer,
      value,
      ...(comment?.trim() ? { comment: comment.trim() } : {}),
    });
    out.write(
      `${result.ok ? feedbackThanks(result.value, result.changed || Boolean(comment?.trim())) : `⚠️  ${result.message}`}\n`,
    );
  }

  /** `y`: approve the waiting call (all of them when several); `n`: deny the first. */
  function approvalButton(yes: boolean): Button {
    const [first = ''] = waiting;
    const all = yes && waiting.length > 1;
    waiting = yes ? [] : waiting.slice(1);
    return { actionId: yes ? (all ? 'approval.all' : 'approval.approve') : 'approval.deny', label: '', value: first };
  }

  async function renderReply(reply: Reply, streamed: string): Promise<string> {
    // The answer text already streamed to the terminal: print only what follows it.
    const alreadyShown = streamed.trim() !== '' && streamed.trim() === reply.text.trim();
    const body = renderPlainText({
      text: alreadyShown ? '' : reply.text,
      blocks: reply.blocks.filter((b) => b.type !== 'file'),
    });
    const saved: string[] = [];
    for (const block of reply.blocks) {
      if (block.type !== 'file') continue;
      await mkdir(opts.filesDir, { recursive: true });
      const path = join(opts.filesDir, `${Date.now()}-${block.file.name.replace(/[^\w.-]/g, '_')}`);
      await writeFile(path, block.file.data);
      saved.push(
        `📎 ${block.file.title ?? block.file.name} saved to ${path}${block.file.preview ? `\n${block.file.preview}` : ''}`,
      );
    }
    const parts = [renderTerminalMarkdown(body, style), ...saved].filter(Boolean);
    // A blank line between the streamed answer (which ends mid-line) and the cards under it.
    return parts.length ? `\n\n${parts.join('\n')}` : '';
  }

  return { threadId, send };
}
