import { Assistant, type App, type Context, type RespondFn, type webApi } from '@slack/bolt';
import type { Agent } from '../../agent/agent.js';
import type { IncomingMessage } from '../../agent/types.js';
import type { Logger } from '../../logger.js';
import { greetingMessage, SUGGESTED_PROMPTS, SUGGESTED_PROMPTS_TITLE, threadTitle } from './assistant-copy.js';
import { normalizeAction, normalizeCommand, normalizeMessageEvent, type CommandRequest, type SlackContext } from './normalize.js';
import { explainSlackError, slackErrorCode } from './slack-errors.js';
import type { SlackState } from './slack-state.js';
import { escapeMrkdwn, truncate } from './text.js';
import { TurnWriter, type ThreadTarget, type WriterOptions } from './turn-writer.js';

export interface HandlerDeps {
  agent: Agent;
  state: SlackState;
  log: Logger;
  writer?: Omit<WriterOptions, 'log'>;
  /** Runs a turn after the ack, detached from Bolt's listener (the adapter drains these on stop). */
  runAfterAck: (work: () => Promise<void>) => void;
}

/**
 * Every Slack entry point: mentions, channel-thread follow-ups, DMs, AI-app threads, slash
 * commands and button clicks. Each acks at once (Bolt acks events itself); everything else
 * (normalize, claim the event in the dedup store, follow the thread, the turn) runs after.
 */
export function registerHandlers(app: App, deps: HandlerDeps): void {
  const { state, log } = deps;

  const runTurn = async (message: IncomingMessage, target: ThreadTarget): Promise<void> => {
    const started = performance.now();
    const writer = new TurnWriter(target, { log, ...deps.writer });
    const result = await writer.deliver(deps.agent.handle(message));
    log.info(
      { platform: 'slack', channel: message.channelId, thread: message.threadId, messageId: message.messageId, ...result, ms: Math.round(performance.now() - started) },
      'slack turn delivered',
    );
  };

  /** After the ack: filter a message event, claim it, follow its thread, answer in the thread. */
  const answerMessage = async (raw: unknown, body: EventBody, context: Context, client: webApi.WebClient, assistant: boolean) => {
    const decision = normalizeMessageEvent(raw, slackContext(context, body), typeof body.event_id === 'string' ? body.event_id : undefined);
    if (decision.kind === 'ignore') {
      log.debug({ reason: decision.reason }, 'slack message ignored');
      return;
    }
    const { message } = decision;
    const inChannel = !message.isDirect;
    // Channel messages reach us for every post in channels we are in: answer mentions and followed threads only.
    if (inChannel && !decision.mentionsBot) {
      const threadTs = (raw as { thread_ts?: string }).thread_ts;
      if (!threadTs || !(await state.follows(message.workspaceId, message.channelId, threadTs))) return;
    }
    if (!(await state.firstTime(decision.dedupKeys))) {
      log.info({ keys: decision.dedupKeys, retryNum: context.retryNum }, 'slack duplicate event dropped');
      return;
    }
    if (inChannel) await state.follow(message.workspaceId, message.channelId, message.threadId);
    // An AI-app thread is named after its first question.
    if (assistant && message.text && (await state.firstInThread(message.channelId, message.threadId))) {
      await client.assistant.threads
        .setTitle({ channel_id: message.channelId, thread_ts: message.threadId, title: threadTitle(message.text) })
        .catch((err: unknown) => log.debug({ code: slackErrorCode(err) }, 'assistant.threads.setTitle refused'));
    }
    await runTurn(message, { client, channel: message.channelId, threadTs: message.threadId, userId: message.userId, userTeamId: decision.userTeamId, status: true });
  };
  const onMessage = (raw: unknown, body: EventBody, context: Context, client: webApi.WebClient, assistant: boolean) =>
    deps.runAfterAck(() => answerMessage(raw, body, context, client, assistant));

  app.assistant(
    new Assistant({
      threadStarted: async ({ event, body, say, setSuggestedPrompts }) => {
        const { channel_id, thread_ts } = event.assistant_thread;
        if (!(await state.firstTime([typeof body.event_id === 'string' ? `event:${body.event_id}` : `started:${channel_id}:${thread_ts}`]))) return;
        try {
          await say(greetingMessage(event.assistant_thread.user_id));
          await setSuggestedPrompts({ prompts: SUGGESTED_PROMPTS.slice(0, 4), title: SUGGESTED_PROMPTS_TITLE });
        } catch (err) {
          const code = slackErrorCode(err);
          log.warn({ code, channel: channel_id }, `slack assistant greeting failed: ${code}`);
        }
      },
      userMessage: async ({ message, body, context, client }) => onMessage(message, body, context, client, true),
    }),
  );

  app.event('app_mention', async ({ event, body, context, client }) => onMessage(event, body, context, client, false));
  app.event('message', async ({ event, body, context, client }) => onMessage(event, body, context, client, false));

  /** After the ack: claim the command, open a thread for it (its visible root), answer there. */
  const answerCommand = async (req: CommandRequest | undefined, say: (text: string) => Promise<void>, client: webApi.WebClient) => {
    if (!req || !(await state.firstTime([req.dedupKey]))) return;
    if (!req.text && req.command.name === 'ask') {
      await say('Ask me something after the command, e.g. `/ask which campaigns ran last week?`');
      return;
    }
    let rootTs: string | undefined;
    try {
      const root = await client.chat.postMessage({
        channel: req.channelId,
        text: truncate(`<@${req.userId}> used /${req.command.name}: ${req.text}`, 3_000),
        blocks: [{ type: 'section', text: { type: 'mrkdwn', text: truncate(`<@${req.userId}> used */${req.command.name}*${req.text ? `: ${escapeMrkdwn(req.text)}` : ''}`, 3_000) } }],
      });
      rootTs = root.ts;
    } catch (err) {
      const code = slackErrorCode(err);
      log.warn({ code, method: 'chat.postMessage', command: req.command.name }, `slack /${req.command.name} could not open a thread: ${code}`);
      await say(explainSlackError(code) ?? 'I could not reply in this conversation. The error has been logged.');
      return;
    }
    if (!rootTs) return;
    if (!req.isDirect) await state.follow(req.workspaceId, req.channelId, rootTs);
    const message: IncomingMessage = {
      platform: 'slack',
      workspaceId: req.workspaceId,
      channelId: req.channelId,
      threadId: rootTs,
      messageId: rootTs,
      userId: req.userId,
      isDirect: req.isDirect,
      text: req.text,
      command: req.command,
    };
    await runTurn(message, { client, channel: req.channelId, threadTs: rootTs, userId: req.userId, userTeamId: req.workspaceId, status: true, respond: say });
  };

  app.command(/^\/\S+$/, async ({ command, ack, respond, context, client }) => {
    await ack();
    deps.runAfterAck(() => answerCommand(normalizeCommand(command, slackContext(context)), ephemeral(respond, log), client));
  });

  app.action({ type: 'block_actions' }, async ({ ack, body, context, client, respond }) => {
    await ack();
    deps.runAfterAck(async () => {
      const n = normalizeAction(body, slackContext(context));
      if (!n || !(await state.firstTime([n.dedupKey]))) return;
      const { message } = n;
      if (!message.isDirect) await state.follow(message.workspaceId, message.channelId, message.threadId);
      await runTurn(message, {
        client,
        channel: message.channelId,
        threadTs: message.threadId,
        userId: message.userId,
        userTeamId: n.userTeamId,
        status: true,
        ...(respond ? { respond: ephemeral(respond, log) } : {}),
      });
    });
  });

  app.error(async (error) => {
    log.error({ code: slackErrorCode(error.original ?? error), err: error }, 'slack listener failed');
  });
}

/** The parts of an Events API envelope we read. */
interface EventBody {
  event_id?: unknown;
  team_id?: unknown;
  enterprise_id?: unknown;
}

/** Bolt's context, with the envelope's team as a fallback when `authorizations` lacks it. */
function slackContext(context: Context, body: EventBody = {}): SlackContext {
  const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  return {
    teamId: context.teamId ?? str(body.team_id),
    enterpriseId: context.enterpriseId ?? str(body.enterprise_id),
    botUserId: context.botUserId,
    botId: context.botId,
  };
}

/** A private note to the person who ran the command or clicked the button. */
function ephemeral(respond: RespondFn, log: Logger): (text: string) => Promise<void> {
  return async (text) => {
    try {
      await respond({ response_type: 'ephemeral', replace_original: false, text });
    } catch (err) {
      log.warn({ err }, 'slack response_url failed');
    }
  };
}
