-- Feedback on answers (issue 47): a thumbs-up or thumbs-down under an answer (Slack's
-- feedback_buttons, Discord's 👍/👎, POST /api/feedback, the console's /good and /bad), and on a
-- thumbs-down an optional comment. One vote per person per answer, changeable: the row is keyed by
-- the turn and the voter's keyed hash (`user_hash`, the same HMAC as turn_log.user_hash: the
-- console can tell "the same person", never who). The comment is text the person chose to give;
-- it lives exactly as long as its turn record: the row references turn_log.turn_id with ON DELETE
-- CASCADE, so TURN_LOG_DAYS' retention (prune_turn_log) and a deleted tenant take it along.

create table if not exists public.turn_feedback (
  id bigint generated always as identity primary key,
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  turn_id uuid not null references public.turn_log (turn_id) on delete cascade,
  user_hash text not null,
  platform text not null,
  value text not null check (value in ('up', 'down')),
  comment text check (char_length(comment) <= 2000),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (tenant_id, turn_id, user_hash)
);
create index if not exists turn_feedback_turn on public.turn_feedback (turn_id);
create index if not exists turn_feedback_down on public.turn_feedback (updated_at desc) where value = 'down';

-- Records one person's vote on one answer of the tenant (a vote again replaces theirs). `status` is
-- `unknown_turn` when the tenant has no such turn (another tenant's, pruned, or not written yet);
-- `previous` is the person's vote before this one (null: their first), `changed` whether the vote
-- is new or different (what the feedback counter counts: a retried click counts once). A comment
-- is kept with a thumbs-down; a vote changed without one drops the old comment, a repeated vote
-- without one keeps it.
create or replace function public.feedback_record(
  p_tenant_id uuid, p_turn_id uuid, p_user_hash text, p_platform text, p_value text, p_comment text default null
)
returns table (status text, previous text, value text, changed boolean, trace_id text)
language plpgsql
as $$
declare
  trace text;
  prev text;
  note text := nullif(btrim(left(coalesce(p_comment, ''), 2000)), '');
begin
  if p_value not in ('up', 'down') then
    raise exception using errcode = 'SB001', message = format('unknown feedback value %L', p_value);
  end if;
  select l.trace_id into trace from public.turn_log l where l.turn_id = p_turn_id and l.tenant_id = p_tenant_id;
  if not found then
    return query select 'unknown_turn'::text, null::text, null::text, false, null::text;
    return;
  end if;
  select f.value into prev from public.turn_feedback f
  where f.tenant_id = p_tenant_id and f.turn_id = p_turn_id and f.user_hash = p_user_hash
  for update;
  insert into public.turn_feedback as f (tenant_id, turn_id, user_hash, platform, value, comment)
  values (p_tenant_id, p_turn_id, p_user_hash, p_platform, p_value, case when p_value = 'down' then note end)
  on conflict (tenant_id, turn_id, user_hash) do update
  set value = excluded.value,
      comment = case
        when excluded.value <> 'down' then null
        when note is not null then note
        when f.value <> excluded.value then null
        else f.comment
      end,
      updated_at = now();
  return query select 'recorded'::text, prev, p_value, prev is distinct from p_value, trace;
end
$$;

-- The console's satisfaction figures for the answers of [p_from, p_to): votes per tenant, per model
-- and per set of tools the answer called (`key`: the distinct tool names, sorted, comma-joined;
-- '' for none), which the console folds into tool families.
create or replace function public.feedback_overview(p_from timestamptz, p_to timestamptz)
returns table (dimension text, key text, up bigint, down bigint)
language sql stable
as $$
  with v as (
    select coalesce(t.slug, t.id::text) as tenant, coalesce(l.model, '') as model,
           coalesce((select string_agg(distinct x ->> 'tool', ',' order by x ->> 'tool')
                     from jsonb_array_elements(l.tools) x), '') as tools,
           f.value
    from public.turn_feedback f
    join public.turn_log l on l.turn_id = f.turn_id and l.tenant_id = f.tenant_id
    join public.tenants t on t.id = f.tenant_id
    where l.created_at >= p_from and l.created_at < p_to
  )
  select 'tenant', tenant, count(*) filter (where value = 'up'), count(*) filter (where value = 'down')
  from v group by tenant
  union all
  select 'model', model, count(*) filter (where value = 'up'), count(*) filter (where value = 'down')
  from v group by model
  union all
  select 'tools', tools, count(*) filter (where value = 'up'), count(*) filter (where value = 'down')
  from v group by tools
  order by 1, 2
$$;

-- The console's thumbs-down list (or thumbs-up with p_value 'up'): newest vote first, with the
-- comment and what the turn record says of the answer (tools, model, cost, trace); `p_turn_id`:
-- one answer's votes (the console's eval-case draft).
create or replace function public.list_feedback(
  p_value text default 'down', p_tenant text default null, p_offset integer default 0, p_limit integer default 50,
  p_turn_id uuid default null
)
returns table (turn_id uuid, voted_at timestamptz, tenant text, platform text, value text, comment text,
               turn_at timestamptz, tools jsonb, model text, prompt_tokens integer, completion_tokens integer,
               cost_usd numeric, trace_id text, outcome text, flags text[])
language sql stable
as $$
  select f.turn_id, f.updated_at, coalesce(t.slug, t.id::text), f.platform, f.value, f.comment, l.created_at,
         l.tools, l.model, l.prompt_tokens, l.completion_tokens, l.cost_usd, l.trace_id, l.outcome, l.flags
  from public.turn_feedback f
  join public.turn_log l on l.turn_id = f.turn_id and l.tenant_id = f.tenant_id
  join public.tenants t on t.id = f.tenant_id
  where f.value = coalesce(p_value, 'down')
    and (p_tenant is null or t.slug = p_tenant)
    and (p_turn_id is null or f.turn_id = p_turn_id)
  order by f.updated_at desc, f.id desc
  offset greatest(coalesce(p_offset, 0), 0)
  limit least(greatest(coalesce(p_limit, 50), 1), 500)
$$;

select sb_private.lock_down(array['feedback_record', 'feedback_overview', 'list_feedback'], array['turn_feedback']);
