-- Slack installations (OAuth, many workspaces) and workspaces waiting for a tenant.
--
-- One row per installation: an org-wide Enterprise Grid install is keyed `E:<enterprise id>`,
-- any other `T:<team id>`. The tokens live only in `secret`: the whole installation Slack
-- returned, encrypted by the application (AES-256-GCM with SLACK_TOKEN_ENCRYPTION_KEY, the key
-- as associated data) before it reaches SQL; the other columns are what an operator may list.

create table if not exists public.slack_installations (
  installation_key text primary key check (installation_key ~ '^[ET]:[A-Z0-9]+$'),
  team_id text,
  team_name text,
  enterprise_id text,
  is_enterprise_install boolean not null default false,
  app_id text,
  bot_user_id text,
  bot_scopes text[] not null default '{}',
  installer_user_id text,
  secret text not null,
  installed_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- A workspace that installed the app under TENANT_MODE=strict, until an admin maps it
-- (`npm run tenants -- approve slack <id> --tenant <slug>`).
create table if not exists public.tenant_workspace_requests (
  platform text not null check (platform in ('slack', 'discord')),
  workspace_id text not null,
  name text,
  requested_by text,
  requested_at timestamptz not null default now(),
  primary key (platform, workspace_id)
);

-- Stores (or replaces, on reinstall) an installation and settles its workspace's tenant:
-- an existing mapping stays; TENANT_MODE=open maps it to the default tenant; strict files a
-- request. Returns the tenant's slug (null while pending).
create or replace function public.slack_save_installation(
  p_installation_key text, p_secret text, p_tenant_mode text,
  p_team_id text default null, p_team_name text default null, p_enterprise_id text default null,
  p_is_enterprise_install boolean default false, p_app_id text default null, p_bot_user_id text default null,
  p_bot_scopes text[] default '{}', p_installer_user_id text default null
)
returns table (installation_key text, workspace_id text, tenant_slug text, pending boolean)
language plpgsql
as $$
declare
  ws text := coalesce(p_team_id, p_enterprise_id);
  slug text;
begin
  insert into public.slack_installations as i (installation_key, team_id, team_name, enterprise_id, is_enterprise_install,
    app_id, bot_user_id, bot_scopes, installer_user_id, secret)
  values (p_installation_key, p_team_id, p_team_name, p_enterprise_id, coalesce(p_is_enterprise_install, false),
    p_app_id, p_bot_user_id, coalesce(p_bot_scopes, '{}'), p_installer_user_id, p_secret)
  on conflict on constraint slack_installations_pkey do update set
    team_id = excluded.team_id, team_name = excluded.team_name, enterprise_id = excluded.enterprise_id,
    is_enterprise_install = excluded.is_enterprise_install, app_id = excluded.app_id, bot_user_id = excluded.bot_user_id,
    bot_scopes = excluded.bot_scopes, installer_user_id = excluded.installer_user_id, secret = excluded.secret, updated_at = now();

  select t.slug into slug from public.tenant_workspaces w join public.tenants t on t.id = w.tenant_id
  where w.platform = 'slack' and w.workspace_id = ws;
  if slug is null and p_tenant_mode = 'open' then
    insert into public.tenant_workspaces (platform, workspace_id, tenant_id)
    select 'slack', ws, t.id from public.tenants t where t.is_default
    on conflict do nothing;
    select t.slug into slug from public.tenants t where t.is_default;
  elsif slug is null then
    insert into public.tenant_workspace_requests as r (platform, workspace_id, name, requested_by)
    values ('slack', ws, p_team_name, p_installer_user_id)
    on conflict on constraint tenant_workspace_requests_pkey do update set name = excluded.name, requested_by = excluded.requested_by, requested_at = now();
  end if;
  return query select p_installation_key, ws, slug, slug is null;
end
$$;

create or replace function public.slack_get_installation(p_installation_key text)
returns table (installation_key text, secret text)
language sql stable
as $$
  select i.installation_key, i.secret from public.slack_installations i where i.installation_key = p_installation_key
$$;

create or replace function public.slack_delete_installation(p_installation_key text)
returns table (installation_key text)
language sql
as $$
  delete from public.slack_installations i where i.installation_key = p_installation_key returning i.installation_key
$$;

create or replace function public.slack_list_installations()
returns table (installation_key text, team_id text, team_name text, enterprise_id text, is_enterprise_install boolean,
  bot_user_id text, bot_scopes text[], installer_user_id text, tenant_slug text, installed_at timestamptz, updated_at timestamptz)
language sql stable
as $$
  select i.installation_key, i.team_id, i.team_name, i.enterprise_id, i.is_enterprise_install, i.bot_user_id, i.bot_scopes,
         i.installer_user_id, t.slug, i.installed_at, i.updated_at
  from public.slack_installations i
  left join public.tenant_workspaces w on w.platform = 'slack' and w.workspace_id = coalesce(i.team_id, i.enterprise_id)
  left join public.tenants t on t.id = w.tenant_id
  order by i.installed_at
$$;

create or replace function public.list_workspace_requests()
returns table (platform text, workspace_id text, name text, requested_by text, requested_at timestamptz)
language sql stable
as $$
  select r.platform, r.workspace_id, r.name, r.requested_by, r.requested_at
  from public.tenant_workspace_requests r order by r.requested_at
$$;

-- An admin's decision on a waiting workspace: approve maps it to the tenant (by slug), reject
-- drops the request. Returns the workspace and the tenant it now has (null when rejected).
create or replace function public.decide_workspace_request(p_platform text, p_workspace_id text, p_tenant text default null)
returns table (platform text, workspace_id text, tenant_slug text)
language plpgsql
as $$
declare
  tid uuid;
begin
  if p_tenant is not null then
    select t.id into tid from public.tenants t where t.slug = p_tenant;
    if tid is null then
      raise exception using errcode = 'SB001', message = format('unknown tenant %L', p_tenant);
    end if;
    insert into public.tenant_workspaces as w (platform, workspace_id, tenant_id) values (p_platform, p_workspace_id, tid)
    on conflict on constraint tenant_workspaces_pkey do update set tenant_id = excluded.tenant_id;
  elsif not exists (select 1 from public.tenant_workspace_requests r where r.platform = p_platform and r.workspace_id = p_workspace_id) then
    raise exception using errcode = 'SB001', message = format('no request from %s workspace %s', p_platform, p_workspace_id);
  end if;
  delete from public.tenant_workspace_requests r where r.platform = p_platform and r.workspace_id = p_workspace_id;
  return query select p_platform, p_workspace_id, p_tenant;
end
$$;

-- What the data port checks at startup (see 20261101000600).
create or replace function public.schema_info()
returns table (version text, vectors_available boolean, embedding_dimensions integer)
language sql stable
as $$
  select '20261126000000'::text,
         a.attname is not null,
         case when a.attname is not null and a.atttypmod > 0 then a.atttypmod end
  from (select 1) one
  left join pg_attribute a
    on a.attrelid = 'public.campaigns'::regclass and a.attname = 'embedding' and not a.attisdropped
$$;

-- Supabase only: the lockdown every migration repeated until now, as one helper that later
-- migrations call. Public functions are callable by the service role alone; the tables named
-- get row level security and no grants for anon or authenticated. Elsewhere (no `anon` role:
-- PGlite, plain Postgres) it does nothing.
create or replace function sb_private.lock_down(p_functions text[], p_tables text[] default '{}')
returns void
language plpgsql
as $$
declare
  f regprocedure;
  t text;
begin
  if not exists (select 1 from pg_roles where rolname = 'anon') then
    return;
  end if;
  foreach t in array p_tables loop
    execute format('alter table public.%I enable row level security', t);
    execute format('revoke all on public.%I from anon, authenticated', t);
  end loop;
  for f in
    select p.oid::regprocedure
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'public' and p.proname = any (p_functions)
  loop
    execute format('revoke execute on function %s from public, anon, authenticated', f);
    if exists (select 1 from pg_roles where rolname = 'service_role') then
      execute format('grant execute on function %s to service_role', f);
    end if;
  end loop;
end
$$;

select sb_private.lock_down(
  array['slack_save_installation', 'slack_get_installation', 'slack_delete_installation', 'slack_list_installations',
        'list_workspace_requests', 'decide_workspace_request', 'schema_info'],
  array['slack_installations', 'tenant_workspace_requests']
);
