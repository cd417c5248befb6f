import type { Context, Link, Span } from '@opentelemetry/api';
import type { AssembledToolCall, ChatMessage, Completion, CompletionRequest } from '../contract/llm.js';
import type { Usage } from '../contract/turn.js';
import {
  activeContext,
  capturingContent,
  contentAttribute,
  failSpan,
  genAiProvider,
  hashThreadKey,
  SpanKind,
  startSpan,
  traced,
  tracingOn,
  withContext,
  withSpan,
} from './tracing.js';

/**
 * The GenAI spans of a turn, per the OpenTelemetry GenAI semantic conventions:
 * `invoke_agent switchboard` (the turn), `chat {model}` (each LLM call) and
 * `execute_tool {name}` (each tool call). Message content goes on them only when
 * OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true.
 */

export const AGENT_NAME = 'switchboard';

/** What the inbox knows about a run when it hands it to the agent: its attempt and the earlier run to link to. */
export interface TurnOrigin {
  attempt: number;
  links: Link[];
  /** Called with the turn span once it starts (the inbox records it so a replay can link to it). */
  onTurnSpan?: (span: Span) => void;
}

/** A context key, as the API's `createContextKey` makes them. */
const ORIGIN = Symbol.for('switchboard.turn_origin');

/** Runs `fn` (an inbox delivery) under `parent`, telling the turn span it will start where it came from. */
export function withTurnOrigin<T>(parent: Context, origin: TurnOrigin, fn: () => T): T {
  return withContext(parent.setValue(ORIGIN, origin), fn);
}

/** The turn span (`invoke_agent`); the caller makes it active around the agent and ends it with `endTurnSpan`. */
export function startTurnSpan(turn: { platform: string; model: string; text: string }): Span {
  const origin = activeContext().getValue(ORIGIN) as TurnOrigin | undefined;
  const span = startSpan(`invoke_agent ${AGENT_NAME}`, {
    kind: SpanKind.INTERNAL,
    links: origin?.links,
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': genAiProvider(),
      'gen_ai.agent.name': AGENT_NAME,
      'gen_ai.request.model': turn.model,
      'switchboard.platform': turn.platform,
      ...(origin ? { 'switchboard.inbox.attempt': origin.attempt } : {}),
    },
  });
  if (capturingContent())
    span.setAttribute('gen_ai.input.messages', contentAttribute([textMessage('user', turn.text)]));
  origin?.onTurnSpan?.(span);
  return span;
}

/** The turn a context is in: its span and, once the agent knows it, its conversation id. */
interface TurnScope {
  span: Span;
  conversationId?: string;
}
const TURN = Symbol.for('switchboard.turn');

/** Runs `fn` (the agent's turn) with the turn span active; its chat and tool spans nest under it. */
export function withTurnSpan<T>(span: Span, fn: () => T): T {
  const scope: TurnScope = { span };
  return withSpan(span, () => withContext(activeContext().setValue(TURN, scope), fn));
}

/**
 * Called by the agent once it knows whose turn it is: the tenant and the conversation (the thread
 * key, hashed: no channel, thread or user id leaves in a span) go on the turn span, and the
 * conversation id on every chat and tool span after it.
 */
export function annotateTurn(tenantId: string, threadKey: string): void {
  if (!tracingOn()) return;
  const scope = activeContext().getValue(TURN) as TurnScope | undefined;
  if (!scope) return;
  scope.conversationId = hashThreadKey(threadKey);
  scope.span.setAttributes({ 'switchboard.tenant.id': tenantId, 'gen_ai.conversation.id': scope.conversationId });
}

/** `gen_ai.conversation.id` of the turn the active context is in, when known. */
function conversation(): Record<string, string> {
  const id = (activeContext().getValue(TURN) as TurnScope | undefined)?.conversationId;
  return id ? { 'gen_ai.conversation.id': id } : {};
}

export function endTurnSpan(
  span: Span,
  end: { outcome: string; errorCode?: string; usage?: Usage; replyText?: string },
): void {
  span.setAttribute('switchboard.turn.outcome', end.outcome);
  if (end.usage) setUsage(span, end.usage);
  if (end.errorCode) failSpan(span, end.errorCode);
  if (end.replyText !== undefined && capturingContent())
    span.setAttribute(
      'gen_ai.output.messages',
      contentAttribute([{ ...textMessage('assistant', end.replyText), finish_reason: 'stop' }]),
    );
  span.end();
}

/** Runs one LLM call under a `chat {model}` span. */
export function tracedChat(
  req: CompletionRequest,
  model: string,
  server: { address?: string; port?: number },
  run: (req: CompletionRequest) => Promise<Completion>,
  errorCode: (err: unknown) => string,
): Promise<Completion> {
  if (!tracingOn()) return run(req);
  const attributes: Record<string, string | number> = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': genAiProvider(),
    'gen_ai.request.model': model,
    'gen_ai.output.type': 'text',
    ...conversation(),
  };
  if (server.address) attributes['server.address'] = server.address;
  if (server.port) attributes['server.port'] = server.port;
  if (req.maxTokens !== undefined) attributes['gen_ai.request.max_tokens'] = req.maxTokens;
  if (req.temperature !== undefined) attributes['gen_ai.request.temperature'] = req.temperature;
  let startedAt = 0;
  return traced(
    `chat ${model}`,
    { kind: SpanKind.CLIENT, attributes },
    (span) => {
      if (span && capturingContent()) setInputContent(span, req);
      startedAt = Date.now();
      return run(req);
    },
    (span, completion) => {
      span.setAttribute('gen_ai.response.finish_reasons', [completion.finishReason]);
      const answeredModel = completion.response?.model ?? completion.answeredBy?.model;
      if (answeredModel) span.setAttribute('gen_ai.response.model', answeredModel);
      // Which endpoint of the chain answered (model@host): a fallback's after a failover.
      if (completion.answeredBy) span.setAttribute('switchboard.model.endpoint', completion.answeredBy.endpoint);
      if (completion.response?.id) span.setAttribute('gen_ai.response.id', completion.response.id);
      const first = completion.response?.firstChunkMs;
      if (first !== undefined) {
        const seconds = Math.round(first) / 1000;
        span.setAttribute('gen_ai.response.time_to_first_chunk', seconds);
        // The event marks the moment on the span's timeline: the request plus the measured delay.
        span.addEvent('gen_ai.first_chunk', { 'gen_ai.response.time_to_first_chunk': seconds }, startedAt + first);
      }
      if (completion.usage) setUsage(span, completion.usage);
      if (capturingContent())
        span.setAttribute('gen_ai.output.messages', contentAttribute([outputMessage(completion)]));
    },
    errorCode,
  );
}

/** What became of a tool call, for its span: `ok` or our error code, and (captured only) its result text. */
export interface ToolOutcome {
  code: string;
  result?: string;
}

/** Runs one tool call under an `execute_tool {name}` span. */
export function tracedToolCall<T>(
  call: AssembledToolCall,
  run: () => Promise<T>,
  outcome: (result: T) => ToolOutcome,
): Promise<T> {
  if (!tracingOn()) return run();
  return traced(
    `execute_tool ${call.name}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': call.name,
        'gen_ai.tool.call.id': call.id,
        'gen_ai.tool.type': 'function',
        ...conversation(),
        ...(capturingContent() ? { 'gen_ai.tool.call.arguments': call.arguments } : {}),
      },
    },
    run,
    (span, result) => {
      const o = outcome(result);
      span.setAttribute('switchboard.tool.outcome', o.code);
      if (o.code !== 'ok') failSpan(span, o.code);
      if (o.result !== undefined && capturingContent()) span.setAttribute('gen_ai.tool.call.result', o.result);
    },
    () => 'tool_failed',
  );
}

function setUsage(span: Span, usage: Usage): void {
  span.setAttribute('gen_ai.usage.input_tokens', usage.promptTokens);
  span.setAttribute('gen_ai.usage.output_tokens', usage.completionTokens);
  if (usage.cachedPromptTokens) span.setAttribute('gen_ai.usage.cache_read.input_tokens', usage.cachedPromptTokens);
  if (usage.reasoningTokens) span.setAttribute('gen_ai.usage.reasoning.output_tokens', usage.reasoningTokens);
}

type Part =
  | { type: 'text'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; result: unknown };

interface SemconvMessage {
  role: string;
  parts: Part[];
  finish_reason?: string;
}

const textMessage = (role: string, content: string): SemconvMessage => ({ role, parts: [{ type: 'text', content }] });

/** Text of a message's content, whatever its shape (a string or a list of typed parts). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p: unknown) => (p && typeof p === 'object' && 'text' in p && typeof p.text === 'string' ? p.text : ''))
    .join('');
}

function parsedArguments(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/** The request as `gen_ai.system_instructions` and `gen_ai.input.messages` (the conventions' JSON shape). */
function setInputContent(span: Span, req: CompletionRequest): void {
  const system: Part[] = [];
  const input: SemconvMessage[] = [];
  for (const m of req.messages as ChatMessage[]) {
    if (m.role === 'system' || m.role === 'developer') {
      system.push({ type: 'text', content: textOf(m.content) });
    } else if (m.role === 'tool') {
      input.push({
        role: 'tool',
        parts: [{ type: 'tool_call_response', id: m.tool_call_id, result: textOf(m.content) }],
      });
    } else if (m.role === 'assistant') {
      const parts: Part[] = [];
      const text = textOf(m.content);
      if (text) parts.push({ type: 'text', content: text });
      for (const c of m.tool_calls ?? [])
        if (c.type === 'function')
          parts.push({
            type: 'tool_call',
            id: c.id,
            name: c.function.name,
            arguments: parsedArguments(c.function.arguments),
          });
      input.push({ role: 'assistant', parts });
    } else {
      input.push(textMessage(m.role, textOf(m.content)));
    }
  }
  if (system.length) span.setAttribute('gen_ai.system_instructions', contentAttribute(system));
  span.setAttribute('gen_ai.input.messages', contentAttribute(input));
}

function outputMessage(completion: Completion): SemconvMessage {
  const parts: Part[] = [];
  const text = completion.refusal ?? completion.content;
  if (text) parts.push({ type: 'text', content: text });
  for (const c of completion.toolCalls)
    parts.push({ type: 'tool_call', id: c.id, name: c.name, arguments: parsedArguments(c.arguments) });
  return { role: 'assistant', parts, finish_reason: completion.finishReason };
}
