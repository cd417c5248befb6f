-- Approvals nobody decided in time (issue 43): the sweep each replica runs asks for the steps of
-- these platforms that still wait past their expiry, one row per step (its first call), oldest
-- first. It decides nothing: each step becomes one inbox entry (deduplicated by its step id), and
-- that entry's conditional UPDATE (approval_decide, `… where state = 'pending'`) expires it once,
-- however many replicas swept it.
create or replace function public.approval_due(p_platforms text[], p_now timestamptz default null,
                                               p_limit integer default 100)
returns table (tenant_id uuid, id uuid, step_id uuid, thread_key text, platform text, workspace_id text,
               channel_id text, thread_id text, asker_id text, expires_at timestamptz)
language sql stable
as $$
  select d.tenant_id, d.id, d.step_id, d.thread_key, d.platform, d.workspace_id, d.channel_id, d.thread_id,
         d.asker_id, d.expires_at
  from (
    select distinct on (a.step_id) a.*
    from public.tool_approvals a
    where a.state = 'pending' and a.expires_at <= coalesce(p_now, now()) and a.platform = any (p_platforms)
    order by a.step_id, a.created_at, a.call_id
  ) d
  order by d.expires_at, d.step_id
  limit greatest(1, least(coalesce(p_limit, 100), 1000))
$$;

select sb_private.lock_down(array['approval_due']);
