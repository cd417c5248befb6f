import { z } from 'zod';
import { domainList, hex32, optionalString, optionalUrl, type Report } from './fields.js';

/** Discord: the gateway (a bot token, sharded or not) and the HTTP interactions endpoint (a public key). */
export const discordSettings = z.object({
  DISCORD_TOKEN: optionalString,
  DISCORD_APPLICATION_ID: optionalString,
  DISCORD_API_URL: optionalUrl,
  DISCORD_GUILD_ID: optionalString,
  /** Gateway shards: the total (`auto`: Discord's recommendation from GET /gateway/bot); unset, one shard. */
  DISCORD_SHARD_COUNT: z
    .string()
    .trim()
    .optional()
    .transform((v, ctx): number | 'auto' | undefined => {
      if (!v) return undefined;
      if (v === 'auto') return 'auto';
      const n = Number(v);
      if (Number.isInteger(n) && n >= 1 && n <= 100_000) return n;
      ctx.addIssue({ code: 'custom', message: 'is a whole number of shards (1 or more) or auto' });
      return z.NEVER;
    }),
  /** The shards this replica connects (`0,1` or `0-3`); unset, all of them. */
  DISCORD_SHARD_IDS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (!v?.trim()) return undefined;
      const ids = new Set<number>();
      for (const part of v
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean)) {
        const m = /^(\d+)(?:-(\d+))?$/.exec(part);
        if (!m || (m[2] !== undefined && Number(m[2]) < Number(m[1]))) {
          ctx.addIssue({ code: 'custom', message: `"${part}" is not a shard id or range (e.g. 0,1 or 0-3)` });
          return z.NEVER;
        }
        for (let id = Number(m[1]); id <= Number(m[2] ?? m[1]); id++) ids.add(id);
      }
      return [...ids].sort((a, b) => a - b);
    }),
  /** The application's public key (Developer Portal → General Information): enables the HTTP interactions endpoint. */
  DISCORD_PUBLIC_KEY: hex32(
    'is the application’s public key: 64 hexadecimal characters (Developer Portal → General Information)',
  ),
  /** Comma-separated role ids: users with none of them are guests for the tool limits (unset: everyone is a member). */
  DISCORD_MEMBER_ROLES: z
    .string()
    .optional()
    .transform((v) =>
      v
        ?.split(',')
        .map((id) => id.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().regex(/^\d{15,22}$/, 'role ids are Discord snowflakes (digits)')).optional()),
  /** Comma-separated domains whose links may show a preview (embed) in Discord; every other link in model text is posted with embeds suppressed. */
  DISCORD_EMBED_DOMAINS: domainList,
});

/** The Discord settings that only make sense together: shards with a token, an application id. */
export function checkDiscordSettings(c: z.infer<typeof discordSettings>, report: Report): void {
  if (c.DISCORD_SHARD_IDS && c.DISCORD_SHARD_COUNT === undefined)
    report(
      'DISCORD_SHARD_COUNT',
      'is required with DISCORD_SHARD_IDS (the total number of shards across replicas, or auto)',
    );
  const count = c.DISCORD_SHARD_COUNT;
  if (c.DISCORD_SHARD_IDS && typeof count === 'number') {
    const outside = c.DISCORD_SHARD_IDS.filter((id) => id >= count);
    if (outside.length > 0)
      report(
        'DISCORD_SHARD_IDS',
        `${outside.join(', ')} ${outside.length > 1 ? 'are' : 'is'} not below DISCORD_SHARD_COUNT (${count}); shard ids run from 0`,
      );
  }
  if ((c.DISCORD_SHARD_COUNT !== undefined || c.DISCORD_SHARD_IDS) && !c.DISCORD_TOKEN)
    report(
      'DISCORD_SHARD_COUNT',
      'shards are gateway connections: set DISCORD_TOKEN too, or unset the DISCORD_SHARD_* settings',
    );
  if (c.DISCORD_PUBLIC_KEY && !c.DISCORD_APPLICATION_ID)
    report(
      'DISCORD_APPLICATION_ID',
      'is required when DISCORD_PUBLIC_KEY is set (Developer Portal → General Information)',
    );
  if (c.DISCORD_TOKEN && !c.DISCORD_APPLICATION_ID)
    report('DISCORD_APPLICATION_ID', 'is required when DISCORD_TOKEN is set (Developer Portal → General Information)');
}
