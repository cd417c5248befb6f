/**
 * Which failures mean "Redis or Postgres is away" (a turn then waits and runs again) and which
 * do not (a bug or a refusal is told at once). The connection errors are real ones: a refused
 * socket, an offline ioredis client, a pg client whose server is gone.
 */
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { DataError } from '../../src/contract/data.js';
import { isConnectionError } from '../../src/contract/infra-errors.js';
import { toDataError } from '../../src/data/rpc-port.js';
import { TransportError } from '../../src/data/transports/types.js';
import { freePort } from '../helpers/free-port.js';

async function refused(): Promise<Error> {
  const port = await freePort();
  return new Promise((resolve) => connect(port, '127.0.0.1').once('error', resolve));
}

describe('isConnectionError', () => {
  it('knows a refused socket, an offline ioredis client and a pg client with no server, also wrapped', async () => {
    const socket = await refused();
    expect(isConnectionError(socket)).toBe(true);

    const port = await freePort();
    const redis = new Redis(`redis://127.0.0.1:${port}`, {
      enableOfflineQueue: false,
      lazyConnect: true,
      retryStrategy: () => null,
    });
    const offline = await redis.get('k').catch((err: unknown) => err);
    redis.disconnect();
    expect(isConnectionError(offline)).toBe(true);

    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/x` });
    const noServer = await client.connect().catch((err: unknown) => err);
    expect(isConnectionError(noServer)).toBe(true);
    // As the data port throws it: a DataError whose cause is the driver's error.
    expect(isConnectionError(toDataError('resolve_tenant', noServer))).toBe(true);
    expect(isConnectionError(new Error('turn failed', { cause: new Error('x', { cause: socket }) }))).toBe(true);
  });

  it.each([
    ['57P03 (starting up)', Object.assign(new Error('the database system is starting up'), { code: '57P03' })],
    ['57P01 (admin shutdown)', Object.assign(new Error('terminating connection'), { code: '57P01' })],
    ['08006 (connection failure)', Object.assign(new Error('x'), { code: '08006' })],
    ['a TransportError carrying 08001', new TransportError('08001', 'could not connect')],
    ['pg "Connection terminated unexpectedly"', new Error('Connection terminated unexpectedly')],
    ['the pool’s connect timeout', new Error('timeout exceeded when trying to connect')],
    ['ioredis "Connection is closed."', new Error('Connection is closed.')],
    ['a fetch to PostgREST that was reset', new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } })],
    ['PostgREST without its database', new TransportError('PGRST000', 'Could not connect with the database')],
  ])('counts %s', (_name, err) => {
    expect(isConnectionError(err)).toBe(true);
  });

  it.each([
    ['a bug', new TypeError('cannot read properties of undefined')],
    ['a refused argument (22P02)', Object.assign(new Error('invalid input syntax'), { code: '22P02' })],
    ['a missing function (42883)', new DataError('f', 'missing', { code: 'not_migrated' })],
    [
      'a statement timeout (57014)',
      Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }),
    ],
    ['a string', 'ECONNREFUSED'],
    ['nothing', undefined],
  ])('does not count %s', (_name, err) => {
    expect(isConnectionError(err)).toBe(false);
  });
});
