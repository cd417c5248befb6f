-- The turn record (issue 33): one row per turn, what the operator console (/admin) reads.
-- Every turn gets one, also those that used no model tokens (refused by a limit or a budget,
-- failed before the model, answered by a button without the model). It carries no message
-- text and no platform id of a person or a thread: `thread_hash` and `user_hash` are keyed
-- hashes (HMAC-SHA-256 with TURN_LOG_HASH_KEY, computed by the application), so the console
-- can tell "the same user" without being able to say who. Kept TURN_LOG_DAYS (default 90):
-- the application deletes older rows in small batches (prune_turn_log).
--
-- The row is written by the same statement as the turn's token-ledger row: record_turn_usage
-- and record_turn_usages take the turn's record as an optional `turn` object (jsonb) and insert
-- both rows in one CTE; a turn without tokens inserts its turn row only. A caller that does not
-- send `turn` (a replica still on the previous version) writes the ledger row as before.

create table if not exists public.turn_log (
  id bigint generated always as identity primary key,
  tenant_id uuid not null references public.tenants(id) on delete cascade,
  platform text not null,
  thread_hash text not null,
  user_hash text not null,
  -- answered | refused (a limit, a budget, a bad request, an unmapped workspace) | failed
  outcome text not null check (outcome in ('answered', 'refused', 'failed')),
  error_code text,
  flags text[] not null default '{}',
  -- [{ "tool": "filter_campaigns", "ok": true }, …] in call order
  tools jsonb not null default '[]'::jsonb,
  duration_ms integer not null default 0 check (duration_ms >= 0),
  model text,
  prompt_tokens integer not null default 0 check (prompt_tokens >= 0),
  completion_tokens integer not null default 0 check (completion_tokens >= 0),
  cached_prompt_tokens integer not null default 0 check (cached_prompt_tokens >= 0),
  cost_usd numeric check (cost_usd >= 0),
  -- The OpenTelemetry trace of the turn, when tracing is on (a link in the console).
  trace_id text,
  created_at timestamptz not null default now()
);
-- The console's queries: the newest turns (all tenants, or one), the overview per period, retention.
create index if not exists turn_log_time on public.turn_log (created_at desc);
create index if not exists turn_log_tenant_time on public.turn_log (tenant_id, created_at desc);

drop function if exists public.record_turn_usage(uuid, text, text, text, text, text, integer, integer, integer, integer, integer, double precision);
create or replace function public.record_turn_usage(
  p_tenant_id uuid, p_platform text, p_channel_id text, p_thread_id text, p_user_id text, p_model text,
  p_prompt_tokens integer, p_completion_tokens integer, p_tool_calls integer,
  p_cached_prompt_tokens integer default null, p_reasoning_tokens integer default null,
  p_cost_usd double precision default null, p_turn jsonb default null
)
returns table (id bigint)
language sql
as $$
  with ledger as (
    insert into public.token_ledger (tenant_id, platform, channel_id, thread_id, user_id, model, prompt_tokens,
                                     completion_tokens, tool_calls, cached_prompt_tokens, reasoning_tokens, cost_usd)
    select p_tenant_id, p_platform, p_channel_id, p_thread_id, p_user_id, p_model, p_prompt_tokens,
           p_completion_tokens, p_tool_calls, coalesce(p_cached_prompt_tokens, 0), coalesce(p_reasoning_tokens, 0),
           p_cost_usd::numeric
    -- A turn that used no tokens has a turn row only (the ledger counts turns that used the model).
    where p_turn is null or p_prompt_tokens + p_completion_tokens > 0
    returning token_ledger.id
  ), turn as (
    insert into public.turn_log (tenant_id, platform, thread_hash, user_hash, outcome, error_code, flags, tools,
                                 duration_ms, model, prompt_tokens, completion_tokens, cached_prompt_tokens, cost_usd,
                                 trace_id)
    select p_tenant_id, p_platform, p_turn ->> 'thread_hash', p_turn ->> 'user_hash', p_turn ->> 'outcome',
           p_turn ->> 'error_code',
           coalesce(array(select jsonb_array_elements_text(coalesce(p_turn -> 'flags', '[]'::jsonb))), '{}'),
           coalesce(p_turn -> 'tools', '[]'::jsonb), coalesce((p_turn ->> 'duration_ms')::integer, 0), p_model,
           p_prompt_tokens, p_completion_tokens, coalesce(p_cached_prompt_tokens, 0), p_cost_usd::numeric,
           p_turn ->> 'trace_id'
    where p_turn is not null
    returning turn_log.id
  )
  -- `turn` runs although unread: Postgres runs every data-modifying CTE to completion.
  select l.id from ledger l
$$;

create or replace function public.record_turn_usages(p_rows jsonb)
returns table (id bigint)
language sql
as $$
  with r as (
    select x.*
    from jsonb_to_recordset(p_rows) as x(
      tenant_id uuid, platform text, channel_id text, thread_id text, user_id text, model text,
      prompt_tokens integer, completion_tokens integer, tool_calls integer,
      cached_prompt_tokens integer, reasoning_tokens integer, cost_usd numeric, turn jsonb
    )
  ), ledger as (
    insert into public.token_ledger (tenant_id, platform, channel_id, thread_id, user_id, model, prompt_tokens,
                                     completion_tokens, tool_calls, cached_prompt_tokens, reasoning_tokens, cost_usd)
    select r.tenant_id, r.platform, r.channel_id, r.thread_id, r.user_id, r.model, r.prompt_tokens,
           r.completion_tokens, coalesce(r.tool_calls, 0), coalesce(r.cached_prompt_tokens, 0),
           coalesce(r.reasoning_tokens, 0), r.cost_usd
    from r
    where r.turn is null or jsonb_typeof(r.turn) = 'null' or r.prompt_tokens + r.completion_tokens > 0
    returning token_ledger.id
  ), turn as (
    insert into public.turn_log (tenant_id, platform, thread_hash, user_hash, outcome, error_code, flags, tools,
                                 duration_ms, model, prompt_tokens, completion_tokens, cached_prompt_tokens, cost_usd,
                                 trace_id)
    select r.tenant_id, r.platform, r.turn ->> 'thread_hash', r.turn ->> 'user_hash', r.turn ->> 'outcome',
           r.turn ->> 'error_code',
           coalesce(array(select jsonb_array_elements_text(coalesce(r.turn -> 'flags', '[]'::jsonb))), '{}'),
           coalesce(r.turn -> 'tools', '[]'::jsonb), coalesce((r.turn ->> 'duration_ms')::integer, 0), r.model,
           r.prompt_tokens, r.completion_tokens, coalesce(r.cached_prompt_tokens, 0), r.cost_usd,
           r.turn ->> 'trace_id'
    from r
    where r.turn is not null and jsonb_typeof(r.turn) = 'object'
    returning turn_log.id
  )
  -- `turn` runs although unread: Postgres runs every data-modifying CTE to completion.
  select l.id from ledger l
$$;

-- The console's overview: per tenant and UTC day in [p_from, p_to).
create or replace function public.turn_overview(p_from timestamptz, p_to timestamptz)
returns table (tenant text, day text, turns bigint, answered bigint, refused bigint, failed bigint, flagged bigint,
               prompt_tokens bigint, completion_tokens bigint, cached_prompt_tokens bigint, cost_usd numeric,
               unpriced_turns bigint)
language sql stable
as $$
  select coalesce(t.slug, t.id::text), to_char((l.created_at at time zone 'UTC')::date, 'YYYY-MM-DD'),
         count(*)::bigint,
         count(*) filter (where l.outcome = 'answered')::bigint,
         count(*) filter (where l.outcome = 'refused')::bigint,
         count(*) filter (where l.outcome = 'failed')::bigint,
         count(*) filter (where cardinality(l.flags) > 0)::bigint,
         sum(l.prompt_tokens)::bigint, sum(l.completion_tokens)::bigint, sum(l.cached_prompt_tokens)::bigint,
         coalesce(sum(l.cost_usd), 0),
         count(*) filter (where l.cost_usd is null and l.prompt_tokens + l.completion_tokens > 0)::bigint
  from public.turn_log l join public.tenants t on t.id = l.tenant_id
  where l.created_at >= p_from and l.created_at < p_to
  group by 1, 2
  order by 1, 2
$$;

-- The console's turns table: newest first, filtered, one page. `p_outcome` is answered, refused,
-- failed or an error code; `p_flag` a flag (prompt_injection).
create or replace function public.list_turns(
  p_tenant text default null, p_platform text default null, p_outcome text default null, p_flag text default null,
  p_offset integer default 0, p_limit integer default 50
)
returns table (id bigint, created_at timestamptz, tenant text, platform text, thread_hash text, user_hash text,
               outcome text, error_code text, flags text[], tools jsonb, duration_ms integer, model text,
               prompt_tokens integer, completion_tokens integer, cached_prompt_tokens integer, cost_usd numeric,
               trace_id text)
language sql stable
as $$
  select l.id, l.created_at, coalesce(t.slug, t.id::text), l.platform, l.thread_hash, l.user_hash, l.outcome,
         l.error_code, l.flags, l.tools, l.duration_ms, l.model, l.prompt_tokens, l.completion_tokens,
         l.cached_prompt_tokens, l.cost_usd, l.trace_id
  from public.turn_log l join public.tenants t on t.id = l.tenant_id
  where (p_tenant is null or t.slug = p_tenant)
    and (p_platform is null or l.platform = p_platform)
    and (p_outcome is null or l.outcome = p_outcome or l.error_code = p_outcome)
    and (p_flag is null or p_flag = any (l.flags))
  order by l.created_at desc, l.id desc
  offset greatest(coalesce(p_offset, 0), 0)
  limit least(greatest(coalesce(p_limit, 50), 1), 500)
$$;

-- Retention: deletes at most p_limit turn rows older than p_days days (the application calls it
-- on a tick until it deletes fewer than p_limit, so no single statement holds a long lock).
create or replace function public.prune_turn_log(p_days integer, p_limit integer default 1000)
returns table (deleted bigint)
language sql
as $$
  with gone as (
    delete from public.turn_log l
    where l.id in (
      select o.id from public.turn_log o
      where o.created_at < now() - make_interval(days => greatest(p_days, 1))
      order by o.created_at
      limit greatest(coalesce(p_limit, 1000), 1)
    )
    returning 1
  )
  select count(*)::bigint from gone
$$;

select sb_private.lock_down(
  array['record_turn_usage', 'record_turn_usages', 'turn_overview', 'list_turns', 'prune_turn_log'],
  array['turn_log']
);
