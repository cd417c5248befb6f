import { existsSync } from 'node:fs';
import { z } from 'zod';
import { approvalSettingsEnv } from './approvals.js';
import { attachmentSettings } from './attachments.js';
import { checkDataSettings, dataSettings } from './data.js';
import { checkDiscordSettings, discordSettings } from './discord.js';
import { ConfigError } from './error.js';
import type { Report } from './fields.js';
import { feedbackSettings } from './feedback.js';
import { httpSettings } from './http.js';
import { limitSettings } from './limits.js';
import { mcpSettings } from './mcp.js';
import { mcpOAuthSettings } from './mcp-oauth.js';
import { memorySettings } from './memory.js';
import { modelSettings, requireLlm } from './model.js';
import { checkSlackSettings, slackSettings } from './slack.js';
import { slackStreamSettings } from './slack-stream.js';
import { telemetrySettings } from './telemetry.js';
import { threadContextSettings } from './thread-context.js';
import { toolSettings } from './tools.js';

/**
 * Every setting, parsed once from the environment. Each entry documents itself:
 * `.env.example` and the README's configuration table list the same names. The settings are
 * grouped by concern, a file each in this folder; this one composes them into one object,
 * parsed in one go, so one error names every bad variable.
 * One family is not parsed here: OpenTelemetry's standard `OTEL_*` variables, which
 * src/telemetry/start.ts reads and the OTLP exporter reads for itself (headers, timeout,
 * compression); parsing them twice would let the two disagree. docs/observability.md lists them.
 */
export const configSchema = z
  .object({
    ...modelSettings.shape,
    ...httpSettings.shape,
    ...limitSettings.shape,
    ...telemetrySettings.shape,
    ...toolSettings.shape,
    ...dataSettings.shape,
    ...slackSettings.shape,
    ...slackStreamSettings.shape,
    ...discordSettings.shape,
    ...threadContextSettings.shape,
    ...attachmentSettings.shape,
    ...approvalSettingsEnv.shape,
    ...mcpSettings.shape,
    ...mcpOAuthSettings.shape,
    ...memorySettings.shape,
    ...feedbackSettings.shape,
  })
  .superRefine((c, ctx) => {
    const report: Report = (name, message) => ctx.addIssue({ code: 'custom', path: [name], message });
    checkDataSettings(c, report);
    checkSlackSettings(c, report);
    checkDiscordSettings(c, report);
  });

export type Config = z.infer<typeof configSchema>;

export { ConfigError } from './error.js';
export { requireLlm, schemaDialect, type ModelPrice } from './model.js';

/** Parses an environment into a Config, or throws a ConfigError naming each bad variable. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const result = configSchema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join('.') || 'environment';
    const got = typeof issue.path[0] === 'string' ? env[issue.path[0]] : undefined;
    const secret = /KEY|TOKEN|SECRET/.test(name);
    const shown = got === undefined || secret ? '' : ` (got "${got.slice(0, 60)}")`;
    return `${name}: ${issue.message}${shown}`;
  });
  throw new ConfigError(problems);
}

/** Reads `.env` when present (Node's own parser; a variable already set wins), then the process environment. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  if (existsSync('.env')) process.loadEnvFile('.env');
  return parseConfig(env);
}

/** For entry points: print a ConfigError plainly and exit 2; never a stack trace. */
export function exitOnConfigError(err: unknown): never {
  if (err instanceof ConfigError) {
    console.error(err.message);
    console.error("See .env.example and the README's configuration table.");
    process.exit(2);
  }
  throw err;
}

/** For entry points that talk to the LLM: the config, or exit 2 with a plain message. */
export function loadConfigForStartup(): Config {
  try {
    const config = loadConfig();
    requireLlm(config);
    return config;
  } catch (err) {
    return exitOnConfigError(err);
  }
}
