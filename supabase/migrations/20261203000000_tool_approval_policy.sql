-- Approval policy per tenant (issue 43). A tenant's `settings.approvals` says, per tool or tool
-- family, whether a call runs (`auto`), waits for a person (`approve`) or is never offered
-- (`off`); whether a tainted turn's write and spend calls wait (`taint`, default true); and who
-- may approve (`approvers`: named users, a Slack user group, a Discord role; none = the asker).
-- The application validates the object (src/contract/approvals.ts); this checks the policy
-- values again, so no transport can store one the bot does not know.

-- Sets a tenant's approval settings, or removes them (p_approvals null: the defaults).
create or replace function public.set_tenant_approvals(p_tenant text, p_approvals jsonb default null)
returns table (slug text, approvals jsonb)
language plpgsql
as $$
declare
  bad text;
begin
  if p_approvals is not null and jsonb_typeof(p_approvals) <> 'object' then
    raise exception using errcode = 'SB001', message = 'approvals must be an object';
  end if;
  if p_approvals ? 'policy' then
    if jsonb_typeof(p_approvals -> 'policy') <> 'object' then
      raise exception using errcode = 'SB001', message = 'approvals.policy must be an object';
    end if;
    select k into bad from jsonb_each(p_approvals -> 'policy') e(k, v)
    where coalesce(e.v #>> '{}', '') not in ('auto', 'approve', 'off') or e.k !~ '^[a-z0-9_-]{1,64}$' limit 1;
    if bad is not null then
      raise exception using errcode = 'SB001', message = format('bad approval policy for %L (auto, approve or off)', bad);
    end if;
  end if;
  if not exists (select 1 from public.tenants t where t.slug = p_tenant) then
    raise exception using errcode = 'SB001', message = format('unknown tenant %L', p_tenant);
  end if;
  update public.tenants t
  set settings = case when p_approvals is null then t.settings - 'approvals'
                      else t.settings || jsonb_build_object('approvals', p_approvals) end,
      updated_at = now()
  where t.slug = p_tenant;
  return query select t.slug, t.settings -> 'approvals' from public.tenants t where t.slug = p_tenant;
end
$$;

-- Every tenant with its approval settings (null: the defaults), for the CLI, the admin API and the console.
create or replace function public.list_tenant_approvals()
returns table (slug text, name text, is_default boolean, approvals jsonb)
language sql stable
as $$
  select t.slug, t.name, t.is_default, t.settings -> 'approvals'
  from public.tenants t order by t.is_default desc, t.slug
$$;

select sb_private.lock_down(array['set_tenant_approvals', 'list_tenant_approvals']);
