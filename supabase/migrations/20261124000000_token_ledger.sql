-- Token ledger: one row per turn that used the LLM, written by the agent core after the
-- turn; summed for `GET /api/usage`, `npm run usage` and the token budgets.

create table if not exists public.token_ledger (
  id bigint generated always as identity primary key,
  tenant_id uuid not null references public.tenants(id) on delete cascade,
  platform text not null,
  channel_id text not null,
  thread_id text not null,
  user_id text not null,
  model text not null,
  prompt_tokens integer not null check (prompt_tokens >= 0),
  completion_tokens integer not null check (completion_tokens >= 0),
  tool_calls integer not null default 0 check (tool_calls >= 0),
  created_at timestamptz not null default now()
);
create index if not exists token_ledger_tenant_time on public.token_ledger (tenant_id, created_at);
create index if not exists token_ledger_user_time on public.token_ledger (tenant_id, user_id, created_at);
create index if not exists token_ledger_thread_time on public.token_ledger (tenant_id, thread_id, created_at);

create or replace function public.record_turn_usage(
  p_tenant_id uuid, p_platform text, p_channel_id text, p_thread_id text, p_user_id text, p_model text,
  p_prompt_tokens integer, p_completion_tokens integer, p_tool_calls integer
)
returns table (id bigint)
language sql
as $$
  insert into public.token_ledger (tenant_id, platform, channel_id, thread_id, user_id, model, prompt_tokens, completion_tokens, tool_calls)
  values (p_tenant_id, p_platform, p_channel_id, p_thread_id, p_user_id, p_model, p_prompt_tokens, p_completion_tokens, p_tool_calls)
  returning token_ledger.id
$$;

-- Totals for one tenant (its id or slug) in [p_from, p_to), optionally for one user or one thread.
create or replace function public.usage_totals(
  p_tenant text, p_from timestamptz, p_to timestamptz, p_user_id text default null, p_thread_id text default null
)
returns table (prompt_tokens bigint, completion_tokens bigint, turns bigint)
language sql stable
as $$
  select coalesce(sum(l.prompt_tokens), 0)::bigint, coalesce(sum(l.completion_tokens), 0)::bigint, count(l.id)::bigint
  from public.tenants t
  left join public.token_ledger l
    on l.tenant_id = t.id and l.created_at >= p_from and l.created_at < p_to
   and (p_user_id is null or l.user_id = p_user_id)
   and (p_thread_id is null or l.thread_id = p_thread_id)
  where t.id::text = p_tenant or t.slug = p_tenant
  group by t.id
$$;

-- Per tenant and UTC day, for `npm run usage`.
create or replace function public.usage_by_day(p_from timestamptz, p_to timestamptz)
returns table (tenant text, day text, prompt_tokens bigint, completion_tokens bigint, turns bigint)
language sql stable
as $$
  select coalesce(t.slug, t.id::text), to_char((l.created_at at time zone 'UTC')::date, 'YYYY-MM-DD'),
         sum(l.prompt_tokens)::bigint, sum(l.completion_tokens)::bigint, count(*)::bigint
  from public.token_ledger l join public.tenants t on t.id = l.tenant_id
  where l.created_at >= p_from and l.created_at < p_to
  group by 1, 2
  order by 1, 2
$$;

create or replace function public.schema_info()
returns table (version text, vectors_available boolean, embedding_dimensions integer)
language sql stable
as $$
  select '20261124000000'::text,
         a.attname is not null,
         case when a.attname is not null and a.atttypmod > 0 then a.atttypmod end
  from (select 1) one
  left join pg_attribute a
    on a.attrelid = 'public.campaigns'::regclass and a.attname = 'embedding' and not a.attisdropped
$$;

-- Supabase only: the same lockdown as the other functions and tables (see 20261101000600).
do $$
declare
  f regprocedure;
begin
  if not exists (select 1 from pg_roles where rolname = 'anon') then
    return;
  end if;
  for f in
    select p.oid::regprocedure
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'public' and p.proname in ('record_turn_usage', 'usage_totals', 'usage_by_day', 'schema_info')
  loop
    execute format('revoke execute on function %s from public, anon, authenticated', f);
    if exists (select 1 from pg_roles where rolname = 'service_role') then
      execute format('grant execute on function %s to service_role', f);
    end if;
  end loop;
  alter table public.token_ledger enable row level security;
end $$;
