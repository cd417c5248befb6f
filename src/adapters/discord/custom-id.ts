import { randomBytes } from 'node:crypto';
import type { Button } from '../../reply/model.js';
import type { KvStore } from '../../state/kv.js';
import { LIMITS } from './limits.js';

/**
 * A button's custom_id carries its action back to us: `actionId` or `actionId|value` when
 * that fits Discord's 100 characters (and is unique on the message); otherwise `~ref`, with
 * the action kept in the kv store under `ref` (shared by every replica when Redis backs it).
 * Action ids never contain '|' or '~' (`[a-z0-9_.:-]`), so the first of them splits the id.
 */
export interface ButtonAction {
  id: string;
  value?: string;
}

export interface ActionStore {
  /** The custom_ids for a message's buttons, in order; long values are stored first. */
  encode(buttons: readonly Button[]): Promise<string[]>;
  /** The action of a clicked button, or undefined when its stored value has expired. */
  decode(customId: string): Promise<ButtonAction | undefined>;
}

const REF = '~';
const SEP = '|';
const keyOf = (ref: string) => `discord:action:${ref}`;

export function createActionStore(kv: KvStore, ttlMs: number): ActionStore {
  return {
    async encode(buttons) {
      const used = new Set<string>();
      const ids: string[] = [];
      for (const b of buttons) {
        let id = inlineId(b);
        if (id === undefined || used.has(id)) {
          const ref = randomBytes(9).toString('base64url');
          const action: ButtonAction = b.value === undefined ? { id: b.actionId } : { id: b.actionId, value: b.value };
          await kv.set(keyOf(ref), action, ttlMs);
          id = `${REF}${ref}`;
        }
        used.add(id);
        ids.push(id);
      }
      return ids;
    },
    async decode(customId) {
      if (customId.startsWith(REF)) return kv.get<ButtonAction>(keyOf(customId.slice(REF.length)));
      const at = customId.indexOf(SEP);
      return at < 0 ? { id: customId } : { id: customId.slice(0, at), value: customId.slice(at + 1) };
    },
  };
}

function inlineId(b: Button): string | undefined {
  if (!b.actionId || b.actionId.includes(SEP) || b.actionId.includes(REF)) return undefined;
  const id = b.value === undefined ? b.actionId : `${b.actionId}${SEP}${b.value}`;
  return id.length <= LIMITS.customId ? id : undefined;
}
