-- Approvals per state in a period (issue 43), for the operator console's overview.
create or replace function public.approval_counts(p_from timestamptz, p_to timestamptz)
returns table (state text, approvals integer)
language sql stable
as $$
  select a.state, count(*)::integer
  from public.tool_approvals a
  where a.created_at >= p_from and a.created_at < p_to
  group by a.state order by a.state
$$;

select sb_private.lock_down(array['approval_counts']);
