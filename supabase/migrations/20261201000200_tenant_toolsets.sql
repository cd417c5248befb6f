-- Toolsets per tenant (issue 28). A tenant's `settings.tools` names the tool families it is
-- offered; without it the bot offers the families the tenant has data for (this function)
-- plus those the deployment has configured (web search key, image model). The bot caches the
-- answer per tenant (src/tools/toolsets.ts), so this runs once a minute per tenant at most.
create or replace function public.tenant_data_families(p_tenant_id uuid)
returns table (family text)
language sql stable
as $$
  select 'campaigns' where exists (select 1 from public.campaigns c where c.tenant_id = p_tenant_id)
  union all
  select 'competitors' where exists (select 1 from public.competitors c where c.tenant_id = p_tenant_id)
  union all
  select 'quotes' where exists (select 1 from public.products p where p.tenant_id = p_tenant_id)
  union all
  select 'business' where exists (select 1 from public.businesses b where b.tenant_id = p_tenant_id)
$$;

-- Sets a tenant's families (by slug), or removes the setting (p_tools null: automatic).
-- Only the `tools` key of settings changes. Names are checked here too, so no transport
-- (pg, PGlite, supabase-js) can store a family the bot does not know.
create or replace function public.set_tenant_tools(p_tenant text, p_tools text[] default null)
returns table (slug text, tools text[])
language plpgsql
as $$
declare
  bad text;
begin
  select x into bad from unnest(coalesce(p_tools, '{}')) x
  where x not in ('campaigns', 'competitors', 'quotes', 'business', 'web', 'images', 'artifacts') limit 1;
  if bad is not null then
    raise exception using errcode = 'SB001', message = format('unknown tool family %L', bad);
  end if;
  if not exists (select 1 from public.tenants t where t.slug = p_tenant) then
    raise exception using errcode = 'SB001', message = format('unknown tenant %L', p_tenant);
  end if;
  update public.tenants t
  set settings = case when p_tools is null then t.settings - 'tools'
                      else t.settings || jsonb_build_object('tools', to_jsonb(array(select distinct unnest(p_tools) order by 1)))
                 end,
      updated_at = now()
  where t.slug = p_tenant;
  return query
  select t.slug, case when t.settings ? 'tools' then array(select jsonb_array_elements_text(t.settings -> 'tools')) end
  from public.tenants t where t.slug = p_tenant;
end
$$;

-- Every tenant with its families setting (null: automatic), for `npm run tenants -- list`.
create or replace function public.list_tenant_tools()
returns table (slug text, name text, is_default boolean, tools text[])
language sql stable
as $$
  select t.slug, t.name, t.is_default,
         case when jsonb_typeof(t.settings -> 'tools') = 'array'
              then array(select jsonb_array_elements_text(t.settings -> 'tools')) end
  from public.tenants t order by t.is_default desc, t.slug
$$;

select sb_private.lock_down(array['tenant_data_families', 'set_tenant_tools', 'list_tenant_tools']);
