import { html } from 'hono/html';
import type { z } from 'zod';
import type { turnListRow } from '../../../../data/rows.js';
import { muted } from '../parts.js';
import type { Column } from '../table.js';

type TurnRow = z.infer<typeof turnListRow>;

/** The settings of a turn in the order a person reads them, with their names on the page. */
const KEYS: [key: string, label: string][] = [
  ['model', 'model'],
  ['fallbacks', 'fallbacks'],
  ['instructions', 'instructions'],
  ['tools', 'tools'],
  ['reply_mode', 'reply mode'],
  ['language', 'language'],
];

/**
 * The turns page's settings column (issue 46): the model that answered, then where each of the
 * turn's settings came from, channel over tenant over default. Settings from the channel or the
 * tenant are named; a turn on defaults alone says so.
 */
export function settingsColumn(sources: ReadonlyMap<number, Record<string, string>>): Column<TurnRow> {
  return {
    label: 'Model and settings',
    cell: (r) => {
      const from = sources.get(r.id);
      const model = r.model ? html`<code>${r.model}</code>` : '';
      if (!from) return model;
      const named = KEYS.filter(([k]) => from[k] === 'channel' || from[k] === 'tenant');
      const line = named.length
        ? named.map(
            ([k, label]) =>
              html`<span class="setting" data-setting="${k}" data-from="${from[k]}">${label} ← ${from[k]}</span> `,
          )
        : muted('all defaults');
      return html`${model} <span class="muted">(model ← ${from.model ?? 'default'})</span><br />${line}`;
    },
  };
}
