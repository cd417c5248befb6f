import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Agent } from '../../agent/agent.js';
import type { IncomingMessage } from '../../contract/turn.js';
import type { Button, Reply } from '../../reply/model.js';
import { renderPlainText, replyButtons } from '../../reply/plain-text.js';
import { parseTypedCommand } from '../typed-command.js';

export interface ConsoleOutput {
  write(text: string): void;
}

/**
 * One terminal conversation in one thread. Typing `:N` clicks button N of the last reply;
 * files are saved under `filesDir` and their paths printed.
 */
export function createConsoleSession(
  agent: Agent,
  out: ConsoleOutput,
  opts: {
    filesDir: string;
    threadId?: string;
    /** The console workspace (a tenant's slug, e.g. `harbourside`); default: the default tenant. */ workspaceId?: string;
  },
) {
  const threadId = opts.threadId ?? randomUUID();
  let buttons: Button[] = [];

  async function send(line: string): Promise<void> {
    const input = line.trim();
    if (!input) return;
    const picked = /^:(\d+)$/.exec(input);
    const button = picked ? buttons[Number(picked[1]) - 1] : undefined;
    if (picked && !button) {
      out.write(`No button ${picked[1]} on the last reply.\n`);
      return;
    }
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
    };
    const command = button ? undefined : parseTypedCommand(input);
    if (command) message.command = command;
    let streamed = '';
    for await (const event of agent.handle(message)) {
      switch (event.type) {
        case 'status':
          out.write(dim(`… ${event.text}\n`));
          break;
        case 'text_delta':
          streamed += event.text;
          out.write(event.text);
          break;
        case 'tool_event':
          // An artifact's code as it is written, dimmed: the file follows with the reply.
          if (event.name === 'artifact_delta' && typeof event.data.delta === 'string') out.write(dim(event.data.delta));
          break;
        case 'tool_call_start':
          if (streamed) out.write('\n');
          streamed = '';
          out.write(dim(`  ⏳ ${event.title}\n`));
          break;
        case 'tool_result':
          out.write(dim(`  ${event.ok ? '✓' : '✗'} ${event.tool}: ${event.summary}\n`));
          break;
        case 'reply':
          out.write(`${await renderReply(event.reply, streamed)}\n`);
          buttons = replyButtons(event.reply);
          if (buttons.length) out.write(dim('(type :N to press button N)\n'));
          break;
        case 'error':
          out.write(`\n⚠️  ${event.message}\n`);
          break;
        default:
          break;
      }
    }
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
    const parts = [terminalMarkdown(body, bold), ...saved].filter(Boolean);
    // A blank line between the streamed answer (which ends mid-line) and the cards under it.
    return parts.length ? `\n\n${parts.join('\n')}` : '';
  }

  return { threadId, send };
}

const dim = (s: string) => (process.stdout.isTTY ? `\x1b[2m${s}\x1b[0m` : s);
const bold = (s: string) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);

/** `**highlight**` (search matches, bold in cards) shown as bold in a terminal, as plain words elsewhere. */
export function terminalMarkdown(text: string, emphasize: (s: string) => string): string {
  return text.replace(/\*\*([^*\n]+?)\*\*/g, (_, inner: string) => emphasize(inner));
}
