-- Usage rows are never lost, nor doubled (issue 41, item 3). A turn's ledger row and turn row that
-- could not be written (the database away) are kept in the usage journal and written later, maybe
-- more than once (a retried flush, two replicas flushing the same journal, a write that committed
-- but whose answer was lost). Each turn now carries an id (`turn.id`, a UUID made by the
-- application) kept in both rows under a unique index, and the insert skips a turn already there
-- (ON CONFLICT DO NOTHING): writing a turn twice writes it once. A journaled turn also carries its
-- time (`turn.at`), so a row written late still counts in the day and month it happened (budgets,
-- the console); a time in the future is clamped to now(). Rows of callers that send no id (older
-- replicas during a rolling deploy) are written as before (NULL ids never conflict).
--
-- Same argument lists as 20261201000500: only the bodies change.

alter table public.token_ledger add column if not exists turn_id uuid;
alter table public.turn_log add column if not exists turn_id uuid;
create unique index if not exists token_ledger_turn_id on public.token_ledger (turn_id);
create unique index if not exists turn_log_turn_id on public.turn_log (turn_id);

create or replace function public.record_turn_usage(
  p_tenant_id uuid, p_platform text, p_channel_id text, p_thread_id text, p_user_id text, p_model text,
  p_prompt_tokens integer, p_completion_tokens integer, p_tool_calls integer,
  p_cached_prompt_tokens integer default null, p_reasoning_tokens integer default null,
  p_cost_usd double precision default null, p_turn jsonb default null
)
returns table (id bigint)
language sql
as $$
  with t as (
    select (p_turn ->> 'id')::uuid as turn_id,
           least(coalesce((p_turn ->> 'at')::timestamptz, now()), now()) as at
  ), ledger as (
    insert into public.token_ledger (tenant_id, platform, channel_id, thread_id, user_id, model, prompt_tokens,
                                     completion_tokens, tool_calls, cached_prompt_tokens, reasoning_tokens, cost_usd,
                                     turn_id, created_at)
    select p_tenant_id, p_platform, p_channel_id, p_thread_id, p_user_id, p_model, p_prompt_tokens,
           p_completion_tokens, p_tool_calls, coalesce(p_cached_prompt_tokens, 0), coalesce(p_reasoning_tokens, 0),
           p_cost_usd::numeric, t.turn_id, t.at
    from t
    -- A turn that used no tokens has a turn row only (the ledger counts turns that used the model).
    where p_turn is null or p_prompt_tokens + p_completion_tokens > 0
    on conflict (turn_id) do nothing
    returning token_ledger.id
  ), turn as (
    insert into public.turn_log (tenant_id, platform, thread_hash, user_hash, outcome, error_code, flags, tools,
                                 duration_ms, model, prompt_tokens, completion_tokens, cached_prompt_tokens, cost_usd,
                                 trace_id, turn_id, created_at)
    select p_tenant_id, p_platform, p_turn ->> 'thread_hash', p_turn ->> 'user_hash', p_turn ->> 'outcome',
           p_turn ->> 'error_code',
           coalesce(array(select jsonb_array_elements_text(coalesce(p_turn -> 'flags', '[]'::jsonb))), '{}'),
           coalesce(p_turn -> 'tools', '[]'::jsonb), coalesce((p_turn ->> 'duration_ms')::integer, 0), p_model,
           p_prompt_tokens, p_completion_tokens, coalesce(p_cached_prompt_tokens, 0), p_cost_usd::numeric,
           p_turn ->> 'trace_id', t.turn_id, t.at
    from t
    where p_turn is not null
    on conflict (turn_id) do nothing
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
    select x.*,
           case when jsonb_typeof(x.turn) = 'object' then (x.turn ->> 'id')::uuid end as turn_id,
           least(coalesce(case when jsonb_typeof(x.turn) = 'object' then (x.turn ->> 'at')::timestamptz end, now()),
                 now()) as at
    from jsonb_to_recordset(p_rows) as x(
      tenant_id uuid, platform text, channel_id text, thread_id text, user_id text, model text,
      prompt_tokens integer, completion_tokens integer, tool_calls integer,
      cached_prompt_tokens integer, reasoning_tokens integer, cost_usd numeric, turn jsonb
    )
  ), ledger as (
    insert into public.token_ledger (tenant_id, platform, channel_id, thread_id, user_id, model, prompt_tokens,
                                     completion_tokens, tool_calls, cached_prompt_tokens, reasoning_tokens, cost_usd,
                                     turn_id, created_at)
    select r.tenant_id, r.platform, r.channel_id, r.thread_id, r.user_id, r.model, r.prompt_tokens,
           r.completion_tokens, coalesce(r.tool_calls, 0), coalesce(r.cached_prompt_tokens, 0),
           coalesce(r.reasoning_tokens, 0), r.cost_usd, r.turn_id, r.at
    from r
    where r.turn is null or jsonb_typeof(r.turn) = 'null' or r.prompt_tokens + r.completion_tokens > 0
    on conflict (turn_id) do nothing
    returning token_ledger.id
  ), turn as (
    insert into public.turn_log (tenant_id, platform, thread_hash, user_hash, outcome, error_code, flags, tools,
                                 duration_ms, model, prompt_tokens, completion_tokens, cached_prompt_tokens, cost_usd,
                                 trace_id, turn_id, created_at)
    select r.tenant_id, r.platform, r.turn ->> 'thread_hash', r.turn ->> 'user_hash', r.turn ->> 'outcome',
           r.turn ->> 'error_code',
           coalesce(array(select jsonb_array_elements_text(coalesce(r.turn -> 'flags', '[]'::jsonb))), '{}'),
           coalesce(r.turn -> 'tools', '[]'::jsonb), coalesce((r.turn ->> 'duration_ms')::integer, 0), r.model,
           r.prompt_tokens, r.completion_tokens, coalesce(r.cached_prompt_tokens, 0), r.cost_usd,
           r.turn ->> 'trace_id', r.turn_id, r.at
    from r
    where r.turn is not null and jsonb_typeof(r.turn) = 'object'
    on conflict (turn_id) do nothing
    returning turn_log.id
  )
  -- `turn` runs although unread: Postgres runs every data-modifying CTE to completion.
  select l.id from ledger l
$$;

select sb_private.lock_down(array['record_turn_usage', 'record_turn_usages']);
