-- The console's Forget (issue 45): an operator forgets one team or channel note of a tenant, by its
-- id, from the Memory page. A person's own note (scope `user`) is never the console's to forget:
-- the console counts those and never lists them, so it is refused here too and left as it was.
-- `status`: forgotten | not_allowed (a user note: untouched) | not_found (no such note in that
-- tenant: another tenant's, swept after expiry, or forgotten already). The note's text is not
-- returned (the console's log line and notice name the note by scope and place only). An unknown
-- tenant is SB001. The delete is one statement: two operators pressing Forget at once get one
-- `forgotten` and one `not_found`.
create or replace function public.memory_admin_forget(p_tenant text, p_id uuid)
returns table (id uuid, scope text, platform text, channel_id text, status text)
language plpgsql
as $$
declare
  tid uuid;
  gone record;
begin
  select t.id into tid from public.tenants t where t.slug = p_tenant;
  if tid is null then
    raise exception using errcode = 'SB001', message = format('unknown tenant %L', p_tenant);
  end if;
  delete from public.memories m
  where m.id = p_id and m.tenant_id = tid and m.scope <> 'user'
  returning m.id, m.scope, m.platform, m.channel_id into gone;
  if found then
    return query select gone.id, gone.scope, gone.platform, gone.channel_id, 'forgotten'::text;
  elsif exists (select 1 from public.memories m where m.id = p_id and m.tenant_id = tid and m.scope = 'user') then
    return query select p_id, 'user'::text, null::text, null::text, 'not_allowed'::text;
  else
    return query select p_id, null::text, null::text, null::text, 'not_found'::text;
  end if;
end
$$;

select sb_private.lock_down(array['memory_admin_forget'], array['memories']);
