import { z } from 'zod';
import type { Tenant } from './data.js';
import type { ModelEndpoint } from './llm.js';
import { modelFallbacksSchema } from './model-chain.js';
import { TOOL_FAMILIES, configuredFamilies, type ToolFamily } from './toolsets.js';

/**
 * Settings per channel (issue 46, item 3). A tenant's Slack channel, Discord channel or Discord
 * category may override the tenant's model (and its fallbacks), extra instructions, tool families,
 * reply mode and language. Precedence, key by key: the channel, then its parent (a Discord
 * channel's category), then the tenant's settings, then the deployment's defaults.
 *
 * The keys mirror the tenant's settings: `model`, `model_fallbacks`, `tools` and `reply_mode` at the
 * top of `tenants.settings`, `instructions` and `language` in its `ai_config`.
 */

export const REPLY_MODES = ['mention', 'all'] as const;
/** `mention`: the bot answers when mentioned (and in its threads, DMs); `all`: every top-level message too. */
export type ReplyMode = (typeof REPLY_MODES)[number];

/** A BCP 47 language code as `ai_config.language` takes it (`da`, `en-GB`). */
const LANGUAGE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

const fields = {
  model: z.string().trim().min(1, 'expected a model name').max(200, 'is over 200 characters'),
  model_fallbacks: modelFallbacksSchema,
  instructions: z.string().trim().min(1, 'expected some text').max(2_000, 'is over 2,000 characters'),
  tools: z.array(z.enum(TOOL_FAMILIES, { error: `expected families of ${TOOL_FAMILIES.join(', ')}` })),
  reply_mode: z.enum(REPLY_MODES, { error: 'expected mention or all' }),
  language: z.string().trim().regex(LANGUAGE, 'expected a language code such as da or en-GB'),
};

/** What the CLI, the admin API and the console write: every key optional, `null` clears it. */
export const channelSettingsPatchSchema = z.strictObject({
  model: fields.model.nullable().optional(),
  model_fallbacks: fields.model_fallbacks.nullable().optional(),
  instructions: fields.instructions.nullable().optional(),
  tools: fields.tools.nullable().optional(),
  reply_mode: fields.reply_mode.nullable().optional(),
  language: fields.language.nullable().optional(),
});
export type ChannelSettingsPatch = z.infer<typeof channelSettingsPatchSchema>;

export interface ChannelSettings {
  model?: string;
  model_fallbacks?: ModelEndpoint[];
  instructions?: string;
  tools?: ToolFamily[];
  reply_mode?: ReplyMode;
  language?: string;
}

export const CHANNEL_SETTING_KEYS = [
  'model',
  'model_fallbacks',
  'instructions',
  'tools',
  'reply_mode',
  'language',
] as const;
export type ChannelSettingKey = (typeof CHANNEL_SETTING_KEYS)[number];

/** A stored row's settings, key by key: a value that does not parse is dropped (a typo never breaks a turn). */
export function readChannelSettings(raw: Record<string, unknown> | undefined): ChannelSettings {
  const out: Record<string, unknown> = {};
  if (!raw) return out;
  for (const key of CHANNEL_SETTING_KEYS) {
    if (raw[key] === undefined || raw[key] === null) continue;
    const parsed = fields[key].safeParse(raw[key]);
    if (parsed.success) out[key] = parsed.data;
  }
  return out as ChannelSettings;
}

/** The channel's settings over its parent's (a Discord category), key by key. */
export function mergeChannelSettings(channel: ChannelSettings, parent: ChannelSettings | undefined): ChannelSettings {
  return parent ? { ...parent, ...channel } : channel;
}

export type SettingSource = 'channel' | 'tenant' | 'default';

/** Each setting that applies to a turn and where it came from. */
export interface AppliedSettings {
  model: { value: string; from: SettingSource };
  /** `undefined` value: the deployment's MODEL_FALLBACKS. */
  fallbacks: { value?: ModelEndpoint[]; from: SettingSource };
  instructions: { value?: string; from: SettingSource };
  /** `undefined` value: chosen automatically (the families the tenant has data for). */
  tools: { value?: ToolFamily[]; from: SettingSource };
  replyMode: { value: ReplyMode; from: SettingSource };
  language: { value?: string; from: SettingSource };
}

const aiConfig = (settings: Record<string, unknown>): Record<string, unknown> => {
  const raw = settings.ai_config;
  return raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
};

/** The tenant's own value of each key, read as leniently as the channel's. */
function tenantSettingsOf(tenant: Pick<Tenant, 'settings'>): ChannelSettings {
  const s = tenant.settings ?? {};
  const ai = aiConfig(s);
  const own = readChannelSettings({
    model: s.model,
    model_fallbacks: s.model_fallbacks,
    reply_mode: s.reply_mode,
    instructions: ai.instructions,
    language: ai.language,
  });
  const tools = configuredFamilies(s);
  return tools ? { ...own, tools } : own;
}

/** What applies in a channel: the channel's value, else the tenant's, else the deployment's (`defaultModel`). */
export function appliedSettings(
  tenant: Pick<Tenant, 'settings'>,
  channel: ChannelSettings | undefined,
  defaultModel: string,
): AppliedSettings {
  const own = tenantSettingsOf(tenant);
  const pick = <K extends ChannelSettingKey>(key: K): { value?: ChannelSettings[K]; from: SettingSource } =>
    channel?.[key] !== undefined
      ? { value: channel[key], from: 'channel' }
      : own[key] !== undefined
        ? { value: own[key], from: 'tenant' }
        : { from: 'default' };
  const model = pick('model');
  const mode = pick('reply_mode');
  return {
    model: { value: model.value ?? defaultModel, from: model.from },
    fallbacks: pick('model_fallbacks'),
    instructions: pick('instructions'),
    tools: pick('tools'),
    replyMode: { value: mode.value ?? 'mention', from: mode.from },
    language: pick('language'),
  };
}

/** Where each setting of a turn came from, as the turn record keeps it (`{ model: 'channel', … }`). */
export function settingSources(applied: AppliedSettings): Record<string, SettingSource> {
  return {
    model: applied.model.from,
    fallbacks: applied.fallbacks.from,
    instructions: applied.instructions.from,
    tools: applied.tools.from,
    reply_mode: applied.replyMode.from,
    language: applied.language.from,
  };
}

/**
 * The tenant as a turn in the channel sees it: the channel's values written over the tenant's
 * settings, where every reader already looks (the prompt's `ai_config`, the registry's `tools`,
 * the chain's `model_fallbacks`, the answer's `model`). The same object for the same inputs is not
 * promised: callers cache it.
 */
export function tenantInChannel(tenant: Tenant, channel: ChannelSettings): Tenant {
  const keys = Object.keys(channel) as ChannelSettingKey[];
  if (keys.length === 0) return tenant;
  const settings: Record<string, unknown> = { ...tenant.settings };
  if (channel.model !== undefined) settings.model = channel.model;
  if (channel.model_fallbacks !== undefined) settings.model_fallbacks = channel.model_fallbacks;
  if (channel.tools !== undefined) settings.tools = channel.tools;
  if (channel.reply_mode !== undefined) settings.reply_mode = channel.reply_mode;
  if (channel.instructions !== undefined || channel.language !== undefined)
    settings.ai_config = {
      ...aiConfig(tenant.settings ?? {}),
      ...(channel.instructions !== undefined ? { instructions: channel.instructions } : {}),
      ...(channel.language !== undefined ? { language: channel.language } : {}),
    };
  return { ...tenant, settings };
}

/** The tenant's own model setting (`settings.model`, a channel's written over it), if valid. */
export function turnModel(tenant: Pick<Tenant, 'settings'>): string | undefined {
  const parsed = fields.model.safeParse(tenant.settings?.model);
  return parsed.success ? parsed.data : undefined;
}

/** One line per setting, for `/switchboard settings`, the CLI and the console. */
export function describeApplied(applied: AppliedSettings): { label: string; value: string; from: SettingSource }[] {
  const fallbackText = (v?: ModelEndpoint[]) =>
    v === undefined ? 'the deployment’s' : v.length === 0 ? 'none' : v.map((e) => e.model).join(', ');
  return [
    { label: 'Model', value: applied.model.value, from: applied.model.from },
    { label: 'Fallbacks', value: fallbackText(applied.fallbacks.value), from: applied.fallbacks.from },
    {
      label: 'Instructions',
      value: applied.instructions.value ? clip(applied.instructions.value, 200) : 'none',
      from: applied.instructions.from,
    },
    {
      label: 'Tools',
      value: applied.tools.value ? applied.tools.value.join(', ') || 'none' : 'automatic',
      from: applied.tools.from,
    },
    {
      label: 'Reply mode',
      value: applied.replyMode.value === 'all' ? 'every message' : 'when mentioned',
      from: applied.replyMode.from,
    },
    { label: 'Language', value: applied.language.value ?? 'the user’s', from: applied.language.from },
  ];
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The words a person types for each setting (CLI options, console form fields), before validation. */
export interface ChannelSettingsWords {
  model?: string | undefined;
  fallbacks?: string | undefined;
  instructions?: string | undefined;
  toolsets?: string | undefined;
  replyMode?: string | undefined;
  language?: string | undefined;
}

/**
 * Turns typed words into a validated patch: `default` (any setting) clears the channel's value
 * (back to the tenant's); `--fallbacks` is JSON (`[]`: none); `--toolsets` a comma list, `none`
 * or `auto` (automatic). An empty word is left out (a console field left blank). Errors name the setting.
 */
export function patchFromWords(
  words: ChannelSettingsWords,
): { ok: true; patch: ChannelSettingsPatch } | { ok: false; error: string } {
  const patch: Record<string, unknown> = {};
  const cleared = (w: string) => w.trim().toLowerCase() === 'default';
  const set = (key: ChannelSettingKey, word: string | undefined, value: (w: string) => unknown) => {
    if (word === undefined || word.trim() === '') return;
    patch[key] = cleared(word) ? null : value(word.trim());
  };
  let bad: string | undefined;
  set('model', words.model, (w) => w);
  set('instructions', words.instructions, (w) => w);
  set('reply_mode', words.replyMode, (w) => w.toLowerCase());
  set('language', words.language, (w) => w);
  set('tools', words.toolsets, (w) => {
    const lower = w.toLowerCase();
    if (lower === 'auto') return 'auto';
    if (lower === 'none') return [];
    return [
      ...new Set(
        lower
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    ].sort();
  });
  set('model_fallbacks', words.fallbacks, (w) => {
    try {
      return JSON.parse(w) as unknown;
    } catch {
      bad = `fallbacks: expected JSON, e.g. [{"baseUrl": "https://…/v1", "model": "…", "apiKeyEnv": "MODEL_KEY_…"}]`;
      return undefined;
    }
  });
  if (bad) return { ok: false, error: bad };
  // `auto` tools: the channel follows the tenant's (automatic or named) families.
  if (patch.tools === 'auto') patch.tools = null;
  const parsed = channelSettingsPatchSchema.safeParse(patch);
  if (!parsed.success)
    return {
      ok: false,
      error: parsed.error.issues
        .map((i) => `${OPTION_NAMES[String(i.path[0])] ?? i.path.join('.')}: ${i.message}`)
        .join('; '),
    };
  return { ok: true, patch: parsed.data };
}

const OPTION_NAMES: Record<string, string> = {
  model: 'model',
  model_fallbacks: 'fallbacks',
  instructions: 'instructions',
  tools: 'toolsets',
  reply_mode: 'reply mode',
  language: 'language',
};
