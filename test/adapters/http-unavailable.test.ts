/**
 * The HTTP API has no inbox to wait in: a turn that cannot reach the database is answered at once
 * with 503 `unavailable` and a Retry-After, worded for a person, never the driver's error.
 */
import { describe, expect, it } from 'vitest';
import { createHttpApp } from '../../src/adapters/http/app.js';
import { startHttpServer } from '../../src/adapters/http/server.js';
import { DataError } from '../../src/contract/data.js';
import type { AdminDataPort } from '../../src/data/index.js';
import { openPgliteTestPort } from '../helpers/db.js';
import { startHarness } from '../helpers/harness.js';
import { testTools } from '../helpers/test-tools.js';

describe('POST /api/chat while the database is away', () => {
  it('answers 503 unavailable with Retry-After, and no driver text', async () => {
    const data: AdminDataPort = await openPgliteTestPort({ seedDemo: false });
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const away: AdminDataPort = {
      ...data,
      defaultTenant: () =>
        Promise.reject(new DataError('default_tenant', 'Database call default_tenant failed', { cause })),
    };
    const h = await startHarness({ tools: testTools, data: away });
    const server = await startHttpServer(createHttpApp({ agent: h.sb.agent, log: h.sb.log }), 0, '127.0.0.1');
    try {
      const res = await fetch(`${server.url}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'hi' }),
      });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('unavailable');
      expect(body.error.message).toMatch(/could not reach my storage/);
      expect(JSON.stringify(body)).not.toMatch(/ECONNREFUSED|5432/);
    } finally {
      await server.close();
      await h.close();
      await data.close();
    }
  });
});
