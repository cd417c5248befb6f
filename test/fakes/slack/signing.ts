/**
 * Requests as Slack sends them to an Events API endpoint: signed with HMAC-SHA256 (`v0`),
 * events as JSON, slash commands as form fields, interactions as `payload=<json>`.
 */
import { createHmac } from 'node:crypto';

export interface SignOptions {
  secret: string;
  /** Unix seconds; default now. */
  timestamp?: number;
  /** Replaces the computed signature (forged requests). */
  signature?: string;
  retryNum?: number;
  retryReason?: string;
}

export function slackSignature(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

export function signedHeaders(body: string, opts: SignOptions, contentType: string): Record<string, string> {
  const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
  return {
    'content-type': contentType,
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': opts.signature ?? slackSignature(opts.secret, timestamp, body),
    ...(opts.retryNum !== undefined
      ? { 'x-slack-retry-num': String(opts.retryNum), 'x-slack-retry-reason': opts.retryReason ?? 'http_timeout' }
      : {}),
  };
}

/** POSTs an Events API body (`event_callback`, `url_verification`). */
export function postEvent(url: string, body: object, opts: SignOptions): Promise<Response> {
  const text = JSON.stringify(body);
  return fetch(url, { method: 'POST', headers: signedHeaders(text, opts, 'application/json'), body: text });
}

/** POSTs a slash command's form fields. */
export function postCommand(url: string, fields: Record<string, string>, opts: SignOptions): Promise<Response> {
  const text = new URLSearchParams(fields).toString();
  return fetch(url, {
    method: 'POST',
    headers: signedHeaders(text, opts, 'application/x-www-form-urlencoded'),
    body: text,
  });
}

/** POSTs an interaction (`block_actions`) the way Slack does: `payload=<json>`. */
export function postInteraction(url: string, payload: object, opts: SignOptions): Promise<Response> {
  const text = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  return fetch(url, {
    method: 'POST',
    headers: signedHeaders(text, opts, 'application/x-www-form-urlencoded'),
    body: text,
  });
}
