import { createHash } from 'node:crypto';
import type * as OtelApi from '@opentelemetry/api';
import type { Attributes, Context, Link, Span, SpanContext } from '@opentelemetry/api';

/**
 * OpenTelemetry traces, the hot-path half. With tracing unset nothing of OpenTelemetry is loaded,
 * not even `@opentelemetry/api`: every helper here checks `on` first, so a turn pays one boolean
 * test per span it would have had. `startTracing` loads the API (`loadApi`) and the SDK with its
 * exporters (`./sdk.ts`) only when an OTLP endpoint is configured; the helpers that touch the
 * API run only after that.
 *
 * Span and attribute names follow the OpenTelemetry GenAI semantic conventions (development
 * status; see docs/observability.md for the version we follow).
 */

let api: typeof OtelApi | undefined;

/** Loads `@opentelemetry/api` (once); `startTracing` calls it before turning tracing on. */
export async function loadApi(): Promise<typeof OtelApi> {
  api ??= await import('@opentelemetry/api');
  return api;
}

/** The API, once tracing is on (every caller has checked `on`). */
const otel = (): typeof OtelApi => {
  if (!api) throw new Error('OpenTelemetry API used before startTracing loaded it');
  return api;
};

/** Span kinds (the values of the API's `SpanKind` enum), usable without loading it. */
export const SpanKind = { INTERNAL: 0, SERVER: 1, CLIENT: 2, PRODUCER: 3, CONSUMER: 4 } as const;
type Kind = (typeof SpanKind)[keyof typeof SpanKind];
/** The API's `SpanStatusCode.ERROR`. */
const STATUS_ERROR = 2;

let on = false;
let captureContent = false;
let providerName = 'openai';

const TRACER = 'switchboard';

/** Whether spans are recorded and exported (an OTLP endpoint is set and the SDK started). */
export const tracingOn = (): boolean => on;

/** Whether prompts, completions and tool arguments/results go on spans (opt-in). */
export const capturingContent = (): boolean => on && captureContent;

/** Set by `startTracing` (and tests); `false` puts every helper back to doing nothing. */
export function setTracingState(state: { on: boolean; captureContent?: boolean; providerName?: string }): void {
  if (state.on && !api) throw new Error('loadApi() first');
  on = state.on;
  captureContent = state.captureContent ?? false;
  providerName = state.providerName ?? 'openai';
}

/** `gen_ai.provider.name` for the configured OpenAI-compatible endpoint. */
export const genAiProvider = (): string => providerName;

/**
 * The well-known `gen_ai.provider.name` values for the OpenAI-compatible endpoints we know by
 * host; anything else is reported as `openai` (the API it speaks), with `server.address` saying where.
 */
export function providerNameFor(baseUrl: string | undefined): string {
  if (!baseUrl) return 'openai';
  let host: string;
  try {
    host = new URL(baseUrl).hostname;
  } catch {
    return 'openai';
  }
  const known: [RegExp, string][] = [
    [/(^|\.)openai\.azure\.com$/, 'azure.ai.openai'],
    [/(^|\.)generativelanguage\.googleapis\.com$/, 'gcp.gemini'],
    [/(^|\.)aiplatform\.googleapis\.com$/, 'gcp.vertex_ai'],
    [/(^|\.)deepseek\.com$/, 'deepseek'],
    [/(^|\.)groq\.com$/, 'groq'],
    [/(^|\.)mistral\.ai$/, 'mistral_ai'],
    [/(^|\.)x\.ai$/, 'x_ai'],
    [/(^|\.)perplexity\.ai$/, 'perplexity'],
    [/(^|\.)anthropic\.com$/, 'anthropic'],
    [/(^|\.)cohere\.(ai|com)$/, 'cohere'],
  ];
  return known.find(([re]) => re.test(host))?.[1] ?? 'openai';
}

const tracer = () => otel().trace.getTracer(TRACER);

/** The active span's trace id: what an operator pastes into Jaeger or Tempo; undefined with tracing off. */
export function currentTraceId(): string | undefined {
  if (!on) return undefined;
  const { trace } = otel();
  const ctx = trace.getActiveSpan()?.spanContext();
  return ctx && trace.isSpanContextValid(ctx) ? ctx.traceId : undefined;
}

/**
 * `trace_id` and `span_id` of the active span for a log line (pino mixin); none with tracing off.
 * A new object each time: pino merges the line's own fields into it.
 */
export function logTraceIds(): Record<string, string> {
  if (!on) return {};
  const { trace } = otel();
  const ctx = trace.getActiveSpan()?.spanContext();
  if (!ctx || !trace.isSpanContextValid(ctx)) return {};
  return { trace_id: ctx.traceId, span_id: ctx.spanId };
}

/** A thread key as `gen_ai.conversation.id`: hashed, so no channel or user id leaves in a span. */
export function hashThreadKey(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 32);
}

/** W3C trace context as it travels in an inbox entry (JSON). */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

/** The active context as a carrier to store with an inbox entry; undefined with tracing off. */
export function injectContext(ctx?: Context): TraceCarrier | undefined {
  if (!on) return undefined;
  const { context, propagation } = otel();
  const carrier: TraceCarrier = {};
  propagation.inject(ctx ?? context.active(), carrier);
  return carrier.traceparent ? carrier : undefined;
}

/** The context a carrier describes (as a remote parent); the root context when there is none. */
export function extractContext(carrier: TraceCarrier | undefined): Context {
  const { propagation, ROOT_CONTEXT } = otel();
  if (!carrier?.traceparent) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, carrier);
}

/** The span context a traceparent names, for a span link (a replay links to the dead run). */
export function spanContextOf(traceparent: string | undefined): SpanContext | undefined {
  if (!traceparent) return undefined;
  const { trace } = otel();
  const ctx = trace.getSpanContext(extractContext({ traceparent }));
  return ctx && trace.isSpanContextValid(ctx) ? ctx : undefined;
}

/** The W3C traceparent of a span (what an inbox run records so a later replay can link to it). */
export function traceparentOf(span: Span): string | undefined {
  const { propagation, trace, ROOT_CONTEXT } = otel();
  const carrier: TraceCarrier = {};
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
  return carrier.traceparent;
}

export interface SpanOptions {
  kind?: Kind;
  attributes?: Attributes;
  links?: Link[];
  startTime?: number;
  /** The parent; default the active context. */
  parent?: Context;
}

/** Starts a span (not made active). Only call with tracing on. */
export function startSpan(name: string, opts: SpanOptions = {}): Span {
  return tracer().startSpan(
    name,
    { kind: opts.kind ?? SpanKind.INTERNAL, attributes: opts.attributes, links: opts.links, startTime: opts.startTime },
    opts.parent ?? otel().context.active(),
  );
}

/** Runs `fn` with `span` active (its logs carry its ids, its children nest under it). */
export function withSpan<T>(span: Span, fn: () => T): T {
  const { context, trace } = otel();
  return context.with(trace.setSpan(context.active(), span), fn);
}

/** Runs `fn` with `ctx` active (an inbox run under the context its entry carried). */
export const withContext = <T>(ctx: Context, fn: () => T): T => otel().context.with(ctx, fn);

/** The active context (tracing on only). */
export const activeContext = (): Context => otel().context.active();

/**
 * Marks a span failed with our error code (`error.type` and the status description): never a
 * stack, a message from a library or anything else that could carry a secret.
 */
export function failSpan(span: Span, code: string): void {
  span.setAttribute('error.type', code);
  span.setStatus({ code: STATUS_ERROR, message: code });
}

/**
 * Runs `fn` under a span when tracing is on (and just runs it when not). `after` reads the
 * result onto the span; a throw marks it failed with `codeOf(err)`.
 */
export async function traced<T>(
  name: string,
  opts: SpanOptions,
  fn: (span: Span | undefined) => Promise<T>,
  after?: (span: Span, result: T) => void,
  codeOf: (err: unknown) => string = () => 'error',
): Promise<T> {
  if (!on) return fn(undefined);
  const span = startSpan(name, opts);
  try {
    const result = await withSpan(span, () => fn(span));
    after?.(span, result);
    return result;
  } catch (err) {
    failSpan(span, codeOf(err));
    throw err;
  } finally {
    span.end();
  }
}

/** Whether a span is active: work outside any turn (a readiness probe's query) makes no trace of its own. */
export function inTrace(): boolean {
  if (!on) return false;
  const { trace } = otel();
  const ctx = trace.getActiveSpan()?.spanContext();
  return !!ctx && trace.isSpanContextValid(ctx);
}

/** Content for a span attribute as the conventions want it (JSON text), only when capture is on. */
export function contentAttribute(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export type { Span };
