-- Per-tenant API tokens: a caller of the HTTP API gets the tenant its bearer token belongs to.
--
-- Only a token's SHA-256 (hex) is stored, never the token: a token is 32 random bytes, so a
-- fast hash is as good as a slow one against guessing (nobody inverts a hash of 256 random
-- bits), it lets the lookup be one index probe, and a stolen table opens nothing. `prefix`
-- (the token's first characters) is not secret: it tells tokens apart in a list and revokes one.
create table if not exists public.api_tokens (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references public.tenants(id) on delete cascade,
  token_hash text not null unique check (token_hash ~ '^[0-9a-f]{64}$'),
  prefix text not null,
  label text,
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
create index if not exists api_tokens_tenant_idx on public.api_tokens (tenant_id);
create index if not exists api_tokens_prefix_idx on public.api_tokens (prefix);

-- A tenant by slug or id; raises SB001 for an unknown one.
create or replace function sb_private.tenant_id_of(p_tenant text)
returns uuid
language plpgsql stable
as $$
declare
  tid uuid;
begin
  select t.id into tid from public.tenants t
  where t.slug = p_tenant or t.id::text = p_tenant;
  if tid is null then
    raise exception using errcode = 'SB001', message = format('unknown tenant %L', p_tenant);
  end if;
  return tid;
end
$$;

create or replace function public.api_token_create(p_tenant text, p_token_hash text, p_prefix text, p_label text default null)
returns table (id uuid, tenant_slug text, prefix text, label text, created_at timestamptz, last_used_at timestamptz, revoked_at timestamptz)
language sql
as $$
  with created as (
    insert into public.api_tokens (tenant_id, token_hash, prefix, label)
    values (sb_private.tenant_id_of(p_tenant), p_token_hash, p_prefix, p_label)
    returning *
  )
  select c.id, t.slug, c.prefix, c.label, c.created_at, c.last_used_at, c.revoked_at
  from created c join public.tenants t on t.id = c.tenant_id
$$;

-- Revokes one live token by its id or a prefix of it (at least the 8 characters `list` shows);
-- raises SB001 when none or several match, so a short prefix never revokes the wrong one.
create or replace function public.api_token_revoke(p_token text)
returns table (id uuid, tenant_slug text, prefix text, label text, created_at timestamptz, last_used_at timestamptz, revoked_at timestamptz)
language plpgsql
as $$
declare
  matches uuid[];
begin
  select array_agg(a.id) into matches from public.api_tokens a
  where a.revoked_at is null
    and (a.id::text = lower(p_token) or (length(p_token) >= 8 and starts_with(a.prefix, p_token)));
  if coalesce(array_length(matches, 1), 0) = 0 then
    raise exception using errcode = 'SB001', message = format('no live token %s', p_token);
  elsif array_length(matches, 1) > 1 then
    raise exception using errcode = 'SB001', message = format('%s live tokens match %s: give more of the prefix or the id', array_length(matches, 1), p_token);
  end if;
  return query
    update public.api_tokens a set revoked_at = now() from public.tenants t
    where a.id = matches[1] and t.id = a.tenant_id
    returning a.id, t.slug, a.prefix, a.label, a.created_at, a.last_used_at, a.revoked_at;
end
$$;

create or replace function public.api_token_list(p_tenant text default null)
returns table (id uuid, tenant_slug text, prefix text, label text, created_at timestamptz, last_used_at timestamptz, revoked_at timestamptz)
language sql stable
as $$
  select a.id, t.slug, a.prefix, a.label, a.created_at, a.last_used_at, a.revoked_at
  from public.api_tokens a join public.tenants t on t.id = a.tenant_id
  where p_tenant is null or a.tenant_id = sb_private.tenant_id_of(p_tenant)
  order by a.created_at, a.id
$$;

-- The tenant of a live token (by its hash), or no row. Marks the token used, at most once a
-- minute, so a busy token does not write on every request.
create or replace function public.api_token_tenant(p_token_hash text)
returns table (token_id uuid, tenant_slug text)
language sql
as $$
  with hit as (
    select a.id, a.tenant_id, a.last_used_at from public.api_tokens a
    where a.token_hash = p_token_hash and a.revoked_at is null
  ), touched as (
    update public.api_tokens a set last_used_at = now()
    from hit where a.id = hit.id and (hit.last_used_at is null or hit.last_used_at < now() - interval '1 minute')
  )
  select hit.id, t.slug from hit join public.tenants t on t.id = hit.tenant_id
$$;

-- The tenant with this slug (an HTTP caller allowed to name its tenant), or no row.
create or replace function public.tenant_by_slug(p_slug text)
returns table (
  id uuid, slug text, name text, business_id uuid, default_campaign_id uuid,
  settings jsonb, is_default boolean
)
language sql stable
as $$
  select t.id, t.slug, t.name, t.business_id, t.default_campaign_id, t.settings, t.is_default
  from public.tenants t where t.slug = p_slug
$$;

select sb_private.lock_down(
  array['api_token_create', 'api_token_revoke', 'api_token_list', 'api_token_tenant', 'tenant_by_slug'],
  array['api_tokens']
);
