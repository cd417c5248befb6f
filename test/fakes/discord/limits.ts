/**
 * Message limits Discord enforces beyond its OpenAPI schemas: 2,000 characters of content
 * for a bot (the spec says 4,000), 6,000 characters across a message's embeds, at most five
 * action rows, and custom_ids unique within a message.
 */
interface EmbedLike {
  title?: string;
  description?: string;
  footer?: { text?: string };
  author?: { name?: string };
  fields?: { name: string; value: string }[];
}

export function checkMessageLimits(path: string, body: unknown): string[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  const record = body as Record<string, unknown>;
  const isMessage = /^\/(channels\/\d+\/messages(\/\d+)?|webhooks\/.+)$/.test(path);
  const message = path.endsWith('/callback')
    ? (record.data as Record<string, unknown> | undefined)
    : isMessage
      ? record
      : undefined;
  if (!message) return [];
  const problems: string[] = [];
  const content = message.content;
  if (typeof content === 'string' && content.length > 2_000)
    problems.push(`content: ${content.length} characters (bots may send 2,000)`);
  const embeds = (message.embeds ?? []) as EmbedLike[];
  const embedChars = embeds.reduce(
    (n, e) =>
      n +
      (e.title?.length ?? 0) +
      (e.description?.length ?? 0) +
      (e.footer?.text?.length ?? 0) +
      (e.author?.name?.length ?? 0) +
      (e.fields ?? []).reduce((m, f) => m + f.name.length + f.value.length, 0),
    0,
  );
  if (embedChars > 6_000) problems.push(`embeds: ${embedChars} characters in all (at most 6,000)`);
  const rows = (message.components ?? []) as { type: number; components?: { custom_id?: string }[] }[];
  if (rows.length > 5) problems.push(`components: ${rows.length} action rows (at most 5)`);
  const ids = rows.flatMap((r) => r.components ?? []).flatMap((c) => (c.custom_id ? [c.custom_id] : []));
  if (new Set(ids).size !== ids.length) problems.push('components: custom_id values must be unique within a message');
  const empty =
    !content &&
    embeds.length === 0 &&
    rows.length === 0 &&
    !message.attachments &&
    path.endsWith('/messages') &&
    !path.includes('/webhooks/');
  if (empty) problems.push('Cannot send an empty message');
  return problems;
}
