-- The thread before a mention, per tenant (issue 42). A tenant's `settings.thread_context`
-- false turns it off for that tenant alone; absent, the deployment's THREAD_CONTEXT decides.
-- Only that key of settings changes.
create or replace function public.set_tenant_thread_context(p_tenant text, p_on boolean default null)
returns table (slug text, thread_context boolean)
language plpgsql
as $$
begin
  if not exists (select 1 from public.tenants t where t.slug = p_tenant) then
    raise exception using errcode = 'SB001', message = format('unknown tenant %L', p_tenant);
  end if;
  update public.tenants t
  set settings = case when p_on is null then t.settings - 'thread_context'
                      else t.settings || jsonb_build_object('thread_context', p_on) end,
      updated_at = now()
  where t.slug = p_tenant;
  return query
  select t.slug, case when jsonb_typeof(t.settings -> 'thread_context') = 'boolean'
                      then (t.settings ->> 'thread_context')::boolean end
  from public.tenants t where t.slug = p_tenant;
end
$$;

-- Every tenant with its setting (null: the deployment decides), for the operator console.
create or replace function public.list_tenant_thread_context()
returns table (slug text, thread_context boolean)
language sql stable
as $$
  select t.slug, case when jsonb_typeof(t.settings -> 'thread_context') = 'boolean'
                      then (t.settings ->> 'thread_context')::boolean end
  from public.tenants t order by t.is_default desc, t.slug
$$;

select sb_private.lock_down(array['set_tenant_thread_context', 'list_tenant_thread_context']);
