-- Pending approvals (issue 43): a tool call that waits for a person. The row is written before
-- the approval message is posted, and a decision is one conditional UPDATE (… where state =
-- 'pending'), so a double click, two approvers at once or a platform retry decide it once.
-- Several calls of one step share a `step_id`: the turn resumes when the last of them is decided.
-- `decided_by` is a keyed hash of the approver (like turn_log.user_hash), never a platform id.
create table if not exists public.tool_approvals (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  step_id uuid not null,
  thread_key text not null,
  platform text not null,
  -- The thread the turn resumes in (platform ids: the row lives as long as the approval matters).
  workspace_id text not null,
  channel_id text not null,
  thread_id text not null,
  asker_id text not null,
  call_id text not null,
  tool text not null,
  arguments jsonb not null default '{}'::jsonb,
  -- { users?: [...], slackGroup?, discordRole? } as the tenant's settings said when it was asked
  approvers jsonb not null default '{}'::jsonb,
  state text not null default 'pending' check (state in ('pending', 'approved', 'denied', 'expired')),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  decided_at timestamptz,
  decided_by text,
  -- Where the approval message was posted (platform message ids), so it can be updated.
  message_ref jsonb
);
create index if not exists tool_approvals_step on public.tool_approvals (tenant_id, step_id);
create index if not exists tool_approvals_pending on public.tool_approvals (expires_at) where state = 'pending';

-- Records the calls of one step that wait (p_items: [{ call_id, tool, arguments }]).
create or replace function public.approval_create(
  p_tenant_id uuid, p_step_id uuid, p_thread_key text, p_platform text, p_workspace_id text, p_channel_id text,
  p_thread_id text, p_asker_id text, p_approvers jsonb, p_expires_at timestamptz, p_items jsonb
)
returns table (id uuid, call_id text, tool text, expires_at timestamptz)
language sql
as $$
  insert into public.tool_approvals as a (tenant_id, step_id, thread_key, platform, workspace_id, channel_id,
                                          thread_id, asker_id, call_id, tool, arguments, approvers, expires_at)
  select p_tenant_id, p_step_id, p_thread_key, p_platform, p_workspace_id, p_channel_id, p_thread_id, p_asker_id, i ->> 'call_id', i ->> 'tool',
         coalesce(i -> 'arguments', '{}'::jsonb), coalesce(p_approvers, '{}'::jsonb), p_expires_at
  from jsonb_array_elements(p_items) with ordinality as x(i, n) order by x.n
  returning a.id, a.call_id, a.tool, a.expires_at
$$;

-- Decides one pending approval, once: 'approved' | 'denied' while it has not expired; one past its
-- time becomes 'expired' whatever was asked. `changed` says whether this call decided it;
-- `pending_in_step` how many calls of its step still wait.
create or replace function public.approval_decide(
  p_tenant_id uuid, p_id uuid, p_decision text, p_decided_by text default null, p_now timestamptz default null
)
returns table (id uuid, step_id uuid, thread_key text, asker_id text, call_id text, tool text, arguments jsonb,
               state text, changed boolean, decided_at timestamptz, decided_by text, created_at timestamptz,
               pending_in_step integer)
language plpgsql
as $$
declare
  at timestamptz := coalesce(p_now, now());
  hit uuid;
begin
  if p_decision not in ('approved', 'denied', 'expired') then
    raise exception using errcode = 'SB001', message = format('unknown decision %L', p_decision);
  end if;
  update public.tool_approvals a
  set state = case when a.expires_at <= at then 'expired' else p_decision end,
      decided_at = at,
      decided_by = case when a.expires_at <= at then null else p_decided_by end
  where a.id = p_id and a.tenant_id = p_tenant_id and a.state = 'pending'
  returning a.id into hit;
  return query
  select a.id, a.step_id, a.thread_key, a.asker_id, a.call_id, a.tool, a.arguments, a.state, hit is not null,
         a.decided_at, a.decided_by, a.created_at,
         (select count(*)::integer from public.tool_approvals b
          where b.tenant_id = a.tenant_id and b.step_id = a.step_id and b.state = 'pending')
  from public.tool_approvals a where a.id = p_id and a.tenant_id = p_tenant_id;
end
$$;

-- One approval (the caller's tenant only): who asked, who may approve, its state.
create or replace function public.approval_get(p_tenant_id uuid, p_id uuid)
returns table (id uuid, step_id uuid, thread_key text, platform text, workspace_id text, channel_id text,
               thread_id text, asker_id text, call_id text, tool text, arguments jsonb, approvers jsonb, state text,
               created_at timestamptz, expires_at timestamptz, decided_at timestamptz, decided_by text,
               message_ref jsonb)
language sql stable
as $$
  select a.id, a.step_id, a.thread_key, a.platform, a.workspace_id, a.channel_id, a.thread_id, a.asker_id, a.call_id, a.tool, a.arguments, a.approvers,
         a.state, a.created_at, a.expires_at, a.decided_at, a.decided_by, a.message_ref
  from public.tool_approvals a where a.id = p_id and a.tenant_id = p_tenant_id
$$;

-- The calls of one step, in the order they were asked (the resumed turn answers each).
create or replace function public.approval_step(p_tenant_id uuid, p_step_id uuid)
returns table (id uuid, call_id text, tool text, arguments jsonb, state text, decided_at timestamptz,
               decided_by text, created_at timestamptz)
language sql stable
as $$
  select a.id, a.call_id, a.tool, a.arguments, a.state, a.decided_at, a.decided_by, a.created_at
  from public.tool_approvals a where a.tenant_id = p_tenant_id and a.step_id = p_step_id
  order by a.created_at, a.call_id
$$;

-- Where the approval message was posted, so the decision can update it.
create or replace function public.approval_set_message(p_tenant_id uuid, p_step_id uuid, p_message_ref jsonb)
returns table (updated integer)
language sql
as $$
  with u as (
    update public.tool_approvals a set message_ref = p_message_ref
    where a.tenant_id = p_tenant_id and a.step_id = p_step_id returning 1
  )
  select count(*)::integer from u
$$;

select sb_private.lock_down(
  array['approval_create', 'approval_decide', 'approval_get', 'approval_step', 'approval_set_message'],
  array['tool_approvals']
);
