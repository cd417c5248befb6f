/**
 * Settings per channel (issue 46, item 3): what reading a channel's settings adds to a turn.
 *
 * - `cached`: the settings of a turn (channel lookup, merge over the tenant, sources) as the agent
 *   reads them on every turn, with the channel's row in the cache (as it is for all but one turn per
 *   channel per 10 s). Figure: µs per turn, p50 and p99 over `--calls`.
 * - `miss`: the same with the cache off (TTL 0), a read of `channel_settings_for` on the embedded
 *   database each time: what the one turn per channel per 10 s pays. Figure: ms, p50 and p99.
 * - `turn`: whole turns through the agent (fake model answering at once) in a channel with settings
 *   (the deployment's own model, so the model request is the same) and in one without, taking
 *   turns; the median of the turn-by-turn differences. Target ≤ 1 ms p50.
 *
 *   npx tsx bench/channel-settings.ts [--calls=20000] [--turns=200]
 */
import { availableParallelism, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { settingsForTurn } from '../src/agent/channel-turn.js';
import type { IncomingMessage } from '../src/contract/turn.js';
import { tenantsCommand } from '../src/data/cli/tenants.js';
import { createChannelSettingsLookup } from '../src/data/channel-settings.js';
import type { AdminDataPort } from '../src/data/index.js';
import { collect, startHarness } from '../test/helpers/harness.js';

export interface ChannelSettingsFigures {
  cachedMicros: { p50: number; p99: number };
  missMs: { p50: number; p99: number };
  /** Turn in a channel with settings minus a turn in one without, ms, p50 of the differences. */
  turnAddedMs: number;
  turns: number;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const arg = (name: string, def: number) => {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
  return hit ? Number(hit.split('=')[1]) : def;
};

let n = 0;
const inChannel = (channelId: string): IncomingMessage => ({
  platform: 'slack',
  workspaceId: 'T0BENCH',
  channelId,
  threadId: `bench-${++n}`,
  messageId: `m-${n}`,
  userId: 'U1',
  role: 'member',
  isDirect: false,
  text: 'hello',
});

export async function measureChannelSettings(calls = 20_000, turns = 200): Promise<ChannelSettingsFigures> {
  const h = await startHarness({ env: { LOG_LEVEL: 'silent' } });
  try {
    const data = h.sb.data as AdminDataPort;
    const out: string[] = [];
    await tenantsCommand(
      data,
      // The deployment's own model, set on the channel: the request is the same as in a channel
      // without settings, so the difference between the two turns is reading and applying them.
      ['channel', 'set', 'default', 'C0SET', '--model', 'gpt-test'],
      (l) => out.push(l),
    );
    const tenant = await data.defaultTenant();
    const message = inChannel('C0SET');

    const cached = createChannelSettingsLookup(data, { ttlMs: 10_000 });
    await settingsForTurn(cached, tenant, message, 'gpt-test');
    const micros: number[] = [];
    for (let i = 0; i < calls; i++) {
      const t = performance.now();
      await settingsForTurn(cached, tenant, message, 'gpt-test');
      micros.push((performance.now() - t) * 1000);
    }

    const uncached = createChannelSettingsLookup(data, { ttlMs: 0 });
    const ms: number[] = [];
    for (let i = 0; i < Math.min(calls, 2_000); i++) {
      const t = performance.now();
      await settingsForTurn(uncached, tenant, message, 'gpt-test');
      ms.push(performance.now() - t);
    }

    // Whole turns, alternating: a channel with settings, then one without (the same model, no tools called).
    const diffs: number[] = [];
    const turn = async (channel: string) => {
      h.llm.script({ text: 'ok' });
      const t = performance.now();
      await collect(h.sb.agent.handle(inChannel(channel)));
      return performance.now() - t;
    };
    for (let i = 0; i < 10; i++) await turn(i % 2 ? 'C0SET' : 'C0NONE'); // warm-up
    for (let i = 0; i < turns; i++) {
      const withSettings = await turn('C0SET');
      const without = await turn('C0NONE');
      diffs.push(withSettings - without);
    }
    return {
      cachedMicros: { p50: pct(micros, 50), p99: pct(micros, 99) },
      missMs: { p50: pct(ms, 50), p99: pct(ms, 99) },
      turnAddedMs: pct(diffs, 50),
      turns,
    };
  } finally {
    await h.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const f = await measureChannelSettings(arg('calls', 20_000), arg('turns', 200));
  const [l1] = loadavg();
  console.log(`channel settings (${availableParallelism()} CPUs, load ${l1?.toFixed(1)})`);
  console.log(
    `  cached lookup + merge per turn: p50 ${f.cachedMicros.p50.toFixed(1)} µs, p99 ${f.cachedMicros.p99.toFixed(1)} µs`,
  );
  console.log(
    `  cache miss (one read of channel_settings_for): p50 ${f.missMs.p50.toFixed(2)} ms, p99 ${f.missMs.p99.toFixed(2)} ms`,
  );
  console.log(
    `  a turn in a channel with settings minus one without: p50 ${f.turnAddedMs.toFixed(2)} ms over ${f.turns} pairs (target ≤ 1 ms)`,
  );
}
