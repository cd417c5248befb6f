-- OAuth 2.1 grants of a tenant's MCP servers (issue 44, item 2; src/mcp/oauth.ts): one row per
-- server whose auth_kind is 'oauth'. Tenant-scoped like every table: each function takes the
-- tenant's id and touches only its own servers' rows.
--
-- `state_sealed` holds the grant as JSON (the client registration, the tokens, the discovered
-- metadata) and `pending_sealed` a consent in progress (the PKCE verifier, the state's hash, the
-- operator session it is bound to), both encrypted by the application before they reach SQL
-- (AES-256-GCM, src/security/sealer.ts, the tenant and the server as associated data), like
-- mcp_servers.headers_sealed. The other columns are what an operator may see: the configured
-- client id, the grant's status and when its access token expires.
create table if not exists public.mcp_oauth (
  server_id uuid primary key references public.mcp_servers (id) on delete cascade,
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  -- An authorization server without dynamic client registration: the client id registered by hand.
  client_id text check (client_id is null or length(client_id) between 1 and 500),
  state_sealed text,
  pending_sealed text,
  -- not_connected: no grant yet; connected; expired or revoked: an operator must connect again.
  status text not null default 'not_connected'
    check (status in ('not_connected', 'connected', 'expired', 'revoked')),
  status_detail text check (status_detail is null or length(status_detail) <= 300),
  expires_at timestamptz,
  updated_at timestamptz not null default now()
);
create index if not exists mcp_oauth_tenant on public.mcp_oauth (tenant_id);

-- One server's grant (no row: never configured nor connected).
create or replace function public.mcp_oauth_get(p_tenant_id uuid, p_server_id uuid)
returns table (server_id uuid, tenant_id uuid, client_id text, state_sealed text, pending_sealed text,
               status text, status_detail text, expires_at timestamptz, updated_at timestamptz)
language sql stable
as $$
  select o.server_id, o.tenant_id, o.client_id, o.state_sealed, o.pending_sealed, o.status, o.status_detail,
         o.expires_at, o.updated_at
  from public.mcp_oauth o
  where o.tenant_id = p_tenant_id and o.server_id = p_server_id
$$;

-- Writes one server's grant whole (the application read it first); SB001 when the tenant has no such server.
create or replace function public.mcp_oauth_put(
  p_tenant_id uuid, p_server_id uuid, p_client_id text default null, p_state_sealed text default null,
  p_pending_sealed text default null, p_status text default null, p_status_detail text default null,
  p_expires_at timestamptz default null
)
returns table (server_id uuid, tenant_id uuid, client_id text, state_sealed text, pending_sealed text,
               status text, status_detail text, expires_at timestamptz, updated_at timestamptz)
language plpgsql
as $$
begin
  if not exists (select 1 from public.mcp_servers s where s.id = p_server_id and s.tenant_id = p_tenant_id) then
    raise exception using errcode = 'SB001', message = 'this tenant has no such MCP server';
  end if;
  return query
  insert into public.mcp_oauth as o (server_id, tenant_id, client_id, state_sealed, pending_sealed, status,
                                     status_detail, expires_at, updated_at)
  values (p_server_id, p_tenant_id, p_client_id, p_state_sealed, p_pending_sealed, coalesce(p_status, 'not_connected'),
          left(p_status_detail, 300), p_expires_at, now())
  on conflict on constraint mcp_oauth_pkey do update
    set client_id = excluded.client_id, state_sealed = excluded.state_sealed,
        pending_sealed = excluded.pending_sealed, status = excluded.status,
        status_detail = excluded.status_detail, expires_at = excluded.expires_at, updated_at = now()
  returning o.server_id, o.tenant_id, o.client_id, o.state_sealed, o.pending_sealed, o.status, o.status_detail,
            o.expires_at, o.updated_at;
end
$$;

-- Every OAuth server's grant, for the console's Health page and its Tenants rows (no secrets):
-- a server without a row is not connected yet.
create or replace function public.mcp_oauth_overview()
returns table (tenant_id uuid, tenant_slug text, server_id uuid, server_name text, client_id text, status text,
               status_detail text, expires_at timestamptz, updated_at timestamptz)
language sql stable
as $$
  select s.tenant_id, t.slug, s.id, s.name, o.client_id, coalesce(o.status, 'not_connected'), o.status_detail,
         o.expires_at, coalesce(o.updated_at, s.created_at)
  from public.mcp_servers s
  join public.tenants t on t.id = s.tenant_id
  left join public.mcp_oauth o on o.server_id = s.id
  where s.auth_kind = 'oauth'
  order by t.slug, s.name
$$;

select sb_private.lock_down(
  array['mcp_oauth_get', 'mcp_oauth_put', 'mcp_oauth_overview'],
  array['mcp_oauth']
);
