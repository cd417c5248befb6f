-- Cost in the token ledger: each row also keeps the prompt tokens the provider served from its
-- prompt cache (billed at a fraction: `usage.prompt_tokens_details.cached_tokens`, DeepSeek's
-- `prompt_cache_hit_tokens`), the reasoning tokens (part of the completion tokens; kept to be
-- seen, not billed twice) and the turn's cost in USD from the bundled price catalogue or
-- MODEL_PRICES (null: no price known for the model). Older rows read as 0 cached, 0 reasoning
-- and no cost.
--
-- Compatible for callers that do not know the new columns yet (a replica still on the previous
-- version during a rolling deploy): record_turn_usage takes them as optional trailing
-- arguments, and record_turn_usages reads absent keys as 0 / null.

alter table public.token_ledger
  add column if not exists cached_prompt_tokens integer not null default 0 check (cached_prompt_tokens >= 0),
  add column if not exists reasoning_tokens integer not null default 0 check (reasoning_tokens >= 0),
  add column if not exists cost_usd numeric check (cost_usd >= 0);

-- A new argument list is a new function in Postgres: drop the old one so a call by name is not
-- ambiguous between the two.
drop function if exists public.record_turn_usage(uuid, text, text, text, text, text, integer, integer, integer);
create or replace function public.record_turn_usage(
  p_tenant_id uuid, p_platform text, p_channel_id text, p_thread_id text, p_user_id text, p_model text,
  p_prompt_tokens integer, p_completion_tokens integer, p_tool_calls integer,
  p_cached_prompt_tokens integer default null, p_reasoning_tokens integer default null,
  p_cost_usd double precision default null
)
returns table (id bigint)
language sql
as $$
  insert into public.token_ledger (tenant_id, platform, channel_id, thread_id, user_id, model, prompt_tokens,
                                   completion_tokens, tool_calls, cached_prompt_tokens, reasoning_tokens, cost_usd)
  values (p_tenant_id, p_platform, p_channel_id, p_thread_id, p_user_id, p_model, p_prompt_tokens,
          p_completion_tokens, p_tool_calls, coalesce(p_cached_prompt_tokens, 0), coalesce(p_reasoning_tokens, 0),
          p_cost_usd::numeric)
  returning token_ledger.id
$$;

create or replace function public.record_turn_usages(p_rows jsonb)
returns table (id bigint)
language sql
as $$
  insert into public.token_ledger (tenant_id, platform, channel_id, thread_id, user_id, model, prompt_tokens,
                                   completion_tokens, tool_calls, cached_prompt_tokens, reasoning_tokens, cost_usd)
  select r.tenant_id, r.platform, r.channel_id, r.thread_id, r.user_id, r.model, r.prompt_tokens,
         r.completion_tokens, coalesce(r.tool_calls, 0), coalesce(r.cached_prompt_tokens, 0),
         coalesce(r.reasoning_tokens, 0), r.cost_usd
  from jsonb_to_recordset(p_rows) as r(
    tenant_id uuid, platform text, channel_id text, thread_id text, user_id text, model text,
    prompt_tokens integer, completion_tokens integer, tool_calls integer,
    cached_prompt_tokens integer, reasoning_tokens integer, cost_usd numeric
  )
  returning token_ledger.id
$$;

-- The totals gain columns: a changed result type needs a drop first. `cost_usd` sums the rows
-- that have a price; `unpriced_turns` counts those that do not, so a partial sum is never
-- mistaken for the whole.
drop function if exists public.usage_totals(text, timestamptz, timestamptz, text, text);
create or replace function public.usage_totals(
  p_tenant text, p_from timestamptz, p_to timestamptz, p_user_id text default null, p_thread_id text default null
)
returns table (prompt_tokens bigint, completion_tokens bigint, turns bigint, cached_prompt_tokens bigint,
               reasoning_tokens bigint, cost_usd numeric, unpriced_turns bigint)
language sql stable
as $$
  select coalesce(sum(l.prompt_tokens), 0)::bigint, coalesce(sum(l.completion_tokens), 0)::bigint, count(l.id)::bigint,
         coalesce(sum(l.cached_prompt_tokens), 0)::bigint, coalesce(sum(l.reasoning_tokens), 0)::bigint,
         coalesce(sum(l.cost_usd), 0), count(l.id) filter (where l.cost_usd is null)::bigint
  from public.tenants t
  left join public.token_ledger l
    on l.tenant_id = t.id and l.created_at >= p_from and l.created_at < p_to
   and (p_user_id is null or l.user_id = p_user_id)
   and (p_thread_id is null or l.thread_id = p_thread_id)
  where t.id::text = p_tenant or t.slug = p_tenant
  group by t.id
$$;

drop function if exists public.usage_by_day(timestamptz, timestamptz);
create or replace function public.usage_by_day(p_from timestamptz, p_to timestamptz)
returns table (tenant text, day text, prompt_tokens bigint, completion_tokens bigint, turns bigint,
               cached_prompt_tokens bigint, reasoning_tokens bigint, cost_usd numeric, unpriced_turns bigint)
language sql stable
as $$
  select coalesce(t.slug, t.id::text), to_char((l.created_at at time zone 'UTC')::date, 'YYYY-MM-DD'),
         sum(l.prompt_tokens)::bigint, sum(l.completion_tokens)::bigint, count(*)::bigint,
         sum(l.cached_prompt_tokens)::bigint, sum(l.reasoning_tokens)::bigint,
         coalesce(sum(l.cost_usd), 0), count(*) filter (where l.cost_usd is null)::bigint
  from public.token_ledger l join public.tenants t on t.id = l.tenant_id
  where l.created_at >= p_from and l.created_at < p_to
  group by 1, 2
  order by 1, 2
$$;

select sb_private.lock_down(array['record_turn_usage', 'record_turn_usages', 'usage_totals', 'usage_by_day']);
