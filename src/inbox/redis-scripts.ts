/**
 * The Lua scripts of the Redis inbox (redis-inbox.ts): each thread's order in a sorted set next
 * to the BullMQ queue, its `running` key, the dedup and bound checks, run atomically in Redis.
 */

/** Lua: the id at the head of a thread's order (lowest `order`, ties by arrival number), or nil. */
const HEAD = `
  local function head(order, seqs)
    local first = redis.call('zrange', order, 0, 0, 'WITHSCORES')
    if #first == 0 then return nil end
    local tied = redis.call('zrangebyscore', order, first[2], first[2])
    local best, bestSeq = nil, nil
    for _, id in ipairs(tied) do
      local n = tonumber(redis.call('hget', seqs, id) or '0')
      if best == nil or n < bestSeq then best, bestSeq = id, n end
    end
    return best
  end
  local function nowMs()
    local t = redis.call('time')
    return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  end`;

/**
 * Atomically: an id already answered is a duplicate; one already waiting is a duplicate whose
 * job is re-added anyway (idempotent: it heals a crash between the two writes); a thread at
 * its bound refuses; otherwise the id joins the thread's order at its `order` score, with the
 * next arrival number (for ties) and its arrival time (Redis's clock, for the settle window).
 */
export const GATE = `${HEAD}
  if redis.call('exists', KEYS[3]) == 1 then return 'done' end
  if redis.call('zscore', KEYS[1], ARGV[1]) then return 'queued' end
  if redis.call('zcard', KEYS[1]) >= tonumber(ARGV[2]) then return 'full' end
  local n = redis.call('incr', KEYS[2])
  redis.call('pexpire', KEYS[2], ARGV[3])
  redis.call('zadd', KEYS[1], ARGV[4], ARGV[1])
  redis.call('pexpire', KEYS[1], ARGV[3])
  redis.call('hset', KEYS[4], ARGV[1], n)
  redis.call('pexpire', KEYS[4], ARGV[3])
  local settle = tonumber(ARGV[5])
  if settle > 0 then
    local now = nowMs()
    redis.call('zremrangebyscore', KEYS[5], '-inf', '(' .. (now - settle))
    redis.call('zadd', KEYS[5], now, ARGV[1])
    redis.call('pexpire', KEYS[5], settle * 2 + 1000)
  end
  return 'added'`;
/** Marks an entry answered, takes it out of its thread's order and frees the thread, in one step; returns the next head. */
export const FINISH = `${HEAD}
  redis.call('set', KEYS[1], '1', 'PX', ARGV[2])
  redis.call('zrem', KEYS[2], ARGV[1])
  redis.call('hdel', KEYS[3], ARGV[1])
  if redis.call('get', KEYS[4]) == ARGV[1] then redis.call('del', KEYS[4]) end
  local h = head(KEYS[2], KEYS[3])
  if h then return {h} end
  return {}`;
/** Takes an entry that can no longer run (answered, failed, gone) out of its thread's order. */
export const CLEAR = `
  redis.call('zrem', KEYS[1], ARGV[1])
  redis.call('hdel', KEYS[2], ARGV[1])
  if redis.call('get', KEYS[3]) == ARGV[1] then redis.call('del', KEYS[3]) end
  return 1`;

/**
 * One round trip at the start of a run: an answered entry is skipped; while another entry of
 * the thread runs (or, none running, this one is not the head of its order) this one waits
 * (the blocker is named, so a dead one can be cleared); the head waits out the settle window
 * when another entry of the thread that is still waiting arrived within it; otherwise the thread is taken, the run
 * counted, and what earlier runs recorded returned. A replay of the running entry (its runner
 * died) runs whatever arrived meanwhile: a running entry is never pre-empted.
 */
export const BEGIN = `${HEAD}
  if redis.call('exists', KEYS[1]) == 1 then return {'done'} end
  local current = redis.call('get', KEYS[6])
  if current and current ~= ARGV[1] then
    return {'wait', current, redis.call('exists', ARGV[3] .. current)}
  end
  if not current then
    local h = head(KEYS[2], KEYS[5])
    if h and h ~= ARGV[1] then
      return {'wait', h, redis.call('exists', ARGV[3] .. h)}
    end
    local settle = tonumber(ARGV[4])
    if settle > 0 then
      local now = nowMs()
      local recent = redis.call('zrevrangebyscore', KEYS[7], '+inf', '(' .. (now - settle), 'WITHSCORES')
      for i = 1, #recent, 2 do
        if recent[i] ~= ARGV[1] and redis.call('zscore', KEYS[2], recent[i]) then
          local left = tonumber(recent[i + 1]) + settle - now
          if left > 0 then return {'settle', tostring(left)} end
        end
      end
    end
  end
  redis.call('set', KEYS[6], ARGV[1], 'PX', ARGV[2])
  local n = redis.call('incr', KEYS[3])
  redis.call('pexpire', KEYS[3], ARGV[2])
  local out = {'run', tostring(n)}
  for _, id in ipairs(redis.call('lrange', KEYS[4], 0, -1)) do out[#out + 1] = id end
  return out`;
