-- A tenant's MCP servers (issue 44): remote tool sources the bot connects to over Streamable
-- HTTP (or the older HTTP+SSE transport). Tenant-scoped like every table: each function takes
-- the tenant's id and touches only its rows.
--
-- `headers_sealed` holds the static headers (an API key, a bearer) as JSON, encrypted by the
-- application before it reaches SQL (AES-256-GCM, src/security/sealer.ts, the row's tenant and
-- name as associated data), exactly like slack_installations.secret. The other columns are what
-- an operator may list. `enabled_tools` / `disabled_tools` are the tenant's own choices by the
-- server's tool names; a tool in neither list is on only when the server marks it read-only.
create table if not exists public.mcp_servers (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  -- Lower-case letters, digits and single hyphens: `<name>__<tool>` stays unambiguous.
  name text not null check (name ~ '^[a-z0-9](-?[a-z0-9])*$' and length(name) <= 30),
  url text not null check (url ~ '^https?://'),
  headers_sealed text,
  auth_kind text not null default 'headers' check (auth_kind in ('headers', 'oauth')),
  enabled_tools text[] not null default '{}',
  disabled_tools text[] not null default '{}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (tenant_id, name)
);

-- Adds a server; SB001 when the tenant already has one of that name.
create or replace function public.mcp_server_add(
  p_tenant_id uuid, p_name text, p_url text, p_headers_sealed text default null,
  p_auth_kind text default 'headers', p_enabled_tools text[] default '{}'
)
returns table (id uuid, tenant_id uuid, name text, url text, headers_sealed text, auth_kind text,
               enabled_tools text[], disabled_tools text[], created_at timestamptz, updated_at timestamptz)
language plpgsql
as $$
begin
  if exists (select 1 from public.mcp_servers s where s.tenant_id = p_tenant_id and s.name = p_name) then
    raise exception using errcode = 'SB001', message = format('this tenant already has an MCP server named %s', p_name);
  end if;
  return query
  insert into public.mcp_servers as s (tenant_id, name, url, headers_sealed, auth_kind, enabled_tools)
  values (p_tenant_id, p_name, p_url, p_headers_sealed, coalesce(p_auth_kind, 'headers'), coalesce(p_enabled_tools, '{}'))
  returning s.id, s.tenant_id, s.name, s.url, s.headers_sealed, s.auth_kind, s.enabled_tools, s.disabled_tools,
            s.created_at, s.updated_at;
end
$$;

-- A tenant's servers, by name (the sealed headers included: the application opens them).
create or replace function public.mcp_server_list(p_tenant_id uuid)
returns table (id uuid, tenant_id uuid, name text, url text, headers_sealed text, auth_kind text,
               enabled_tools text[], disabled_tools text[], created_at timestamptz, updated_at timestamptz)
language sql stable
as $$
  select s.id, s.tenant_id, s.name, s.url, s.headers_sealed, s.auth_kind, s.enabled_tools, s.disabled_tools,
         s.created_at, s.updated_at
  from public.mcp_servers s where s.tenant_id = p_tenant_id order by s.name
$$;

-- Removes a server; returns it (no row when the tenant has none of that name).
create or replace function public.mcp_server_remove(p_tenant_id uuid, p_name text)
returns table (id uuid, name text)
language sql
as $$
  delete from public.mcp_servers s where s.tenant_id = p_tenant_id and s.name = p_name returning s.id, s.name
$$;

-- The tenant's choices of tools on one server (null leaves a list as it is).
create or replace function public.mcp_server_set_tools(
  p_tenant_id uuid, p_name text, p_enabled_tools text[] default null, p_disabled_tools text[] default null
)
returns table (id uuid, tenant_id uuid, name text, url text, headers_sealed text, auth_kind text,
               enabled_tools text[], disabled_tools text[], created_at timestamptz, updated_at timestamptz)
language sql
as $$
  update public.mcp_servers s
  set enabled_tools = coalesce(p_enabled_tools, s.enabled_tools),
      disabled_tools = coalesce(p_disabled_tools, s.disabled_tools),
      updated_at = now()
  where s.tenant_id = p_tenant_id and s.name = p_name
  returning s.id, s.tenant_id, s.name, s.url, s.headers_sealed, s.auth_kind, s.enabled_tools, s.disabled_tools,
            s.created_at, s.updated_at
$$;

select sb_private.lock_down(
  array['mcp_server_add', 'mcp_server_list', 'mcp_server_remove', 'mcp_server_set_tools'],
  array['mcp_servers']
);
