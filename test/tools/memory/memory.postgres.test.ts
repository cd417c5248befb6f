/**
 * Long-term memory on Postgres (issue 45): the same suite as on PGlite, and two app instances
 * (replicas) on one database seeing the same notes at once: written on one, recalled, listed and
 * forgotten on the other.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { IncomingMessage } from '../../../src/contract/turn.js';
import { openDataPort, type AdminDataPort } from '../../../src/data/index.js';
import { silentLogger } from '../../../src/telemetry/logger.js';
import { MEMORY_NOTE_HEAD } from '../../../src/tools/memory/index.js';
import {
  noticeWithoutPostgres,
  openPostgresTestPort,
  testConfig,
  TEST_DATABASE_URL,
  type TestDatabase,
} from '../../helpers/db.js';
import { collect, message, replyOf, sentMessages, startHarness, type Harness } from '../../helpers/harness.js';
import { defineMemorySuite } from './memory.suite.js';

noticeWithoutPostgres('the long-term memory suite');

describe.skipIf(!TEST_DATABASE_URL)('Postgres', () => {
  defineMemorySuite('long-term memory on Postgres', {
    async open() {
      const { port, db } = await openPostgresTestPort();
      return {
        port,
        close: async () => {
          await port.close();
          await db.drop();
        },
      };
    },
  });

  describe('two replicas on one database', () => {
    let db: TestDatabase;
    let ports: AdminDataPort[] = [];
    let one: Harness;
    let two: Harness;

    beforeAll(async () => {
      const first = await openPostgresTestPort();
      db = first.db;
      const second = await openDataPort(testConfig({ DATABASE_URL: db.url }), silentLogger(), { tenantCacheMs: 0 });
      ports = [first.port, second];
      one = await startHarness({ data: first.port });
      two = await startHarness({ data: second });
    }, 120_000);
    afterAll(async () => {
      await one?.close();
      await two?.close();
      for (const p of ports) await p.close();
      await db?.drop();
    });

    const dm = (text: string, over: Partial<IncomingMessage> = {}) =>
      message(text, {
        platform: 'slack',
        workspaceId: 'T-A',
        channelId: 'D-alice',
        threadId: `rep-${Math.random()}`,
        userId: 'U-alice',
        isDirect: true,
        ...over,
      });

    it('a note saved on one replica is recalled, listed and forgotten on the other at once', async () => {
      one.llm.script(
        { toolCalls: [{ name: 'remember', arguments: { scope: 'team', text: 'Our fiscal year starts in July' } }] },
        { text: 'Noted.' },
      );
      await collect(one.sb.agent.handle(dm('Remember that our fiscal year starts in July')));

      two.llm.script({ text: 'July.' });
      await collect(two.sb.agent.handle(dm('When does our fiscal year start?')));
      const sent = sentMessages(two.llm.lastRequest('/chat/completions')!.body);
      expect(sent.some((m) => typeof m.content === 'string' && m.content.startsWith(MEMORY_NOTE_HEAD))).toBe(true);

      const list = replyOf(await collect(two.sb.agent.handle(dm('', { command: { name: 'memory', options: {} } }))));
      const button = list?.blocks.flatMap((b) => (b.type === 'buttons' ? b.buttons : []))[0];
      expect(button?.label).toBe('Forget 1');
      const gone = replyOf(
        await collect(two.sb.agent.handle(dm('', { action: { id: 'memory.forget', value: button!.value! } }))),
      );
      expect(gone?.text).toBe('Forgotten (team): “Our fiscal year starts in July”');

      // Replica one sees it gone at once: nothing recalled.
      one.llm.script({ text: 'I do not know.' });
      await collect(one.sb.agent.handle(dm('When does our fiscal year start?')));
      expect(JSON.stringify(one.llm.lastRequest('/chat/completions')!.body)).not.toContain('July');
      expect(await ports[0]!.admin('memory_counts', {}, z.array(z.unknown()).or(z.unknown()))).toEqual([]);
    });
  });
});
