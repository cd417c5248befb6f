-- Settings per channel (issue 46, item 3): a tenant's Slack channel, Discord channel or Discord
-- category overrides the tenant's model (and fallbacks), extra instructions, toolsets, reply mode
-- (`mention`, or `all`: every top-level message in the channel is answered) and language.
-- Precedence: channel over tenant over the deployment's defaults.
--
-- `settings` holds only the keys the channel overrides: { model, model_fallbacks, instructions,
-- tools, reply_mode, language }. The application validates what it writes (the CLI, the admin API,
-- the console) and ignores a bad stored value when it reads (a typo never breaks a turn). Channel
-- ids are the platform's own: Slack's `C…`/`G…` and Discord's numeric snowflakes never collide.
create table if not exists public.channel_settings (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  channel_id text not null check (length(channel_id) between 1 and 64),
  settings jsonb not null default '{}'::jsonb check (jsonb_typeof(settings) = 'object'),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, channel_id)
);

-- The turn's settings and where each came from ({ "model": "channel", "language": "tenant", … }),
-- shown on the console's turns page.
alter table public.turn_log add column if not exists settings jsonb;

-- A turn's channel and its parent (a Discord thread's channel, a channel's category), in one read.
create or replace function public.channel_settings_for(p_tenant_id uuid, p_channel_ids text[])
returns table (channel_id text, settings jsonb)
language sql stable
as $$
  select c.channel_id, c.settings
  from public.channel_settings c
  where c.tenant_id = p_tenant_id and c.channel_id = any (p_channel_ids)
$$;

-- Merges `p_settings` into the channel's (a key set to null is dropped: back to the tenant's);
-- a channel left with no key has no row. Returns the channel's settings after the change.
create or replace function public.set_channel_settings(p_tenant text, p_channel_id text, p_settings jsonb)
returns table (tenant text, channel_id text, settings jsonb, updated_at timestamptz)
language plpgsql
as $$
#variable_conflict use_column
declare
  tid uuid;
  merged jsonb;
begin
  select t.id into tid from public.tenants t where t.slug = p_tenant;
  if tid is null then
    raise exception using errcode = 'SB001', message = format('unknown tenant %L', p_tenant);
  end if;
  if p_settings is null or jsonb_typeof(p_settings) <> 'object' then
    raise exception using errcode = 'SB001', message = 'settings must be a JSON object';
  end if;
  select jsonb_strip_nulls(coalesce((select c.settings from public.channel_settings c
                                     where c.tenant_id = tid and c.channel_id = p_channel_id), '{}'::jsonb)
                           || p_settings)
  into merged;
  if merged = '{}'::jsonb then
    delete from public.channel_settings c where c.tenant_id = tid and c.channel_id = p_channel_id;
    return query select p_tenant, p_channel_id, '{}'::jsonb, now();
    return;
  end if;
  insert into public.channel_settings as c (tenant_id, channel_id, settings, updated_at)
  values (tid, p_channel_id, merged, now())
  on conflict on constraint channel_settings_pkey
  do update set settings = excluded.settings, updated_at = excluded.updated_at;
  return query
  select p_tenant, c.channel_id, c.settings, c.updated_at
  from public.channel_settings c where c.tenant_id = tid and c.channel_id = p_channel_id;
end
$$;

-- Drops a channel's settings (all of them): the tenant's apply again.
create or replace function public.clear_channel_settings(p_tenant text, p_channel_id text)
returns table (cleared boolean)
language plpgsql
as $$
declare
  tid uuid;
  n integer;
begin
  select t.id into tid from public.tenants t where t.slug = p_tenant;
  if tid is null then
    raise exception using errcode = 'SB001', message = format('unknown tenant %L', p_tenant);
  end if;
  delete from public.channel_settings c where c.tenant_id = tid and c.channel_id = p_channel_id;
  get diagnostics n = row_count;
  return query select n > 0;
end
$$;

-- Every channel with settings, of one tenant or all, for the CLI and the console.
create or replace function public.list_channel_settings(p_tenant text default null)
returns table (tenant text, channel_id text, settings jsonb, updated_at timestamptz)
language sql stable
as $$
  select t.slug, c.channel_id, c.settings, c.updated_at
  from public.channel_settings c join public.tenants t on t.id = c.tenant_id
  where p_tenant is null or t.slug = p_tenant
  order by t.is_default desc, t.slug, c.channel_id
$$;

-- The settings' sources of the turns the console shows (ids as text: the console's page of them).
create or replace function public.turn_settings(p_ids text[])
returns table (id bigint, settings jsonb)
language sql stable
as $$
  select l.id, l.settings from public.turn_log l
  where l.id = any (select x::bigint from unnest(p_ids) as x where x ~ '^[0-9]{1,18}$') and l.settings is not null
$$;

-- The turn row now keeps `turn.settings`. Same argument lists and bodies as 20261202000000, one column more.
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
                                 trace_id, turn_id, created_at, settings, memories)
    select p_tenant_id, p_platform, p_turn ->> 'thread_hash', p_turn ->> 'user_hash', p_turn ->> 'outcome',
           p_turn ->> 'error_code',
           coalesce(array(select jsonb_array_elements_text(coalesce(p_turn -> 'flags', '[]'::jsonb))), '{}'),
           coalesce(p_turn -> 'tools', '[]'::jsonb), coalesce((p_turn ->> 'duration_ms')::integer, 0), p_model,
           p_prompt_tokens, p_completion_tokens, coalesce(p_cached_prompt_tokens, 0), p_cost_usd::numeric,
           p_turn ->> 'trace_id', t.turn_id, t.at,
           case when jsonb_typeof(p_turn -> 'settings') = 'object' then p_turn -> 'settings' end,
           greatest(coalesce((p_turn ->> 'memories')::integer, 0), 0)
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
                                 trace_id, turn_id, created_at, settings, memories)
    select r.tenant_id, r.platform, r.turn ->> 'thread_hash', r.turn ->> 'user_hash', r.turn ->> 'outcome',
           r.turn ->> 'error_code',
           coalesce(array(select jsonb_array_elements_text(coalesce(r.turn -> 'flags', '[]'::jsonb))), '{}'),
           coalesce(r.turn -> 'tools', '[]'::jsonb), coalesce((r.turn ->> 'duration_ms')::integer, 0), r.model,
           r.prompt_tokens, r.completion_tokens, coalesce(r.cached_prompt_tokens, 0), r.cost_usd,
           r.turn ->> 'trace_id', r.turn_id, r.at,
           case when jsonb_typeof(r.turn -> 'settings') = 'object' then r.turn -> 'settings' end,
           greatest(coalesce((r.turn ->> 'memories')::integer, 0), 0)
    from r
    where r.turn is not null and jsonb_typeof(r.turn) = 'object'
    on conflict (turn_id) do nothing
    returning turn_log.id
  )
  -- `turn` runs although unread: Postgres runs every data-modifying CTE to completion.
  select l.id from ledger l
$$;

select sb_private.lock_down(
  array['channel_settings_for', 'set_channel_settings', 'clear_channel_settings', 'list_channel_settings',
        'turn_settings', 'record_turn_usage', 'record_turn_usages'],
  array['channel_settings']
);
