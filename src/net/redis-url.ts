// Apart from redis-connection.ts so that describing a URL does not load ioredis (memory-only start-ups).

/** `redis://host:port/db` with no credentials, for log lines and error messages. */
export function describeRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.hostname}:${u.port || '6379'}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return '(unparseable REDIS_URL)';
  }
}
