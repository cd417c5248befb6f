-- Switchboard core schema: tenants and the tables every tool family reads.
--
-- Applies unchanged on Supabase (`supabase db push`), on any Postgres >= 14
-- (`npm run db:migrate`) and on the embedded PGlite. Vector parts live in the next
-- migration because pgvector is optional.
--
-- Every tool-facing table carries tenant_id; the SQL functions in later migrations take
-- the tenant as their first argument and filter on it, so one tenant never reads
-- another's rows. Natural keys (unique constraints below) make imports idempotent.

-- Helpers that are not part of the callable API live outside `public`, so PostgREST
-- (which exposes `public` only) never offers them as RPC endpoints.
create schema if not exists sb_private;

-- Lower-cases every element; immutable so generated columns and indexes may use it.
create or replace function sb_private.lower_array(p_values text[])
returns text[]
language sql immutable parallel safe
as $$
  select coalesce(array_agg(lower(btrim(v)) order by o), '{}'::text[])
  from unnest(p_values) with ordinality as t(v, o)
  where v is not null and btrim(v) <> ''
$$;

-- Digits only, last nine kept: '+61 412 345 678' and '0412 345 678' compare equal.
create or replace function sb_private.phone_key(p_phone text)
returns text
language sql immutable parallel safe
as $$
  select nullif(right(regexp_replace(coalesce(p_phone, ''), '\D', '', 'g'), 9), '')
$$;

-- ---------------------------------------------------------------------------
-- Tenants
-- ---------------------------------------------------------------------------

create table if not exists public.tenants (
  id uuid primary key default gen_random_uuid(),
  slug text not null unique check (slug ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
  name text not null,
  -- The business the receptionist tools answer for (businesses.id), when the tenant has one.
  business_id uuid,
  -- The campaign the competitor tool scopes to by default (campaigns.id).
  default_campaign_id uuid,
  settings jsonb not null default '{}'::jsonb,
  -- Exactly one tenant is the default: it serves HTTP, the console and, unless
  -- TENANT_MODE=strict, every workspace without a mapping.
  is_default boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index if not exists tenants_one_default on public.tenants (is_default) where is_default;

create table if not exists public.tenant_workspaces (
  platform text not null check (platform in ('slack', 'discord', 'http', 'console')),
  workspace_id text not null,
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (platform, workspace_id)
);
create index if not exists tenant_workspaces_tenant on public.tenant_workspaces (tenant_id);

-- The default tenant exists from the first migration so a fresh database can serve the
-- console at once; the embedded database fills it with demo data.
insert into public.tenants (id, slug, name, is_default)
values ('00000000-0000-4000-8000-000000000001', 'default', 'Default workspace', true)
on conflict (id) do nothing;

-- ---------------------------------------------------------------------------
-- Campaigns (ad creatives captured from many companies)
-- ---------------------------------------------------------------------------

create table if not exists public.campaigns (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  -- Natural key within the tenant: the file's source_key, or a hash of the content.
  source_key text not null,
  company text not null,
  brand text,
  channel text not null,
  offer text,
  key_value_props text[] not null default '{}',
  imagery_sentiment text,
  imagery_visual_style text,
  capture_date date not null,
  campaign_text text not null default '',
  full_campaign_text text not null default '',
  -- Case-insensitive filter keys, kept in step with the display values by Postgres.
  channel_key text generated always as (lower(channel)) stored,
  value_prop_keys text[] generated always as (sb_private.lower_array(key_value_props)) stored,
  sentiment_key text generated always as (lower(imagery_sentiment)) stored,
  style_key text generated always as (lower(imagery_visual_style)) stored,
  has_offer boolean generated always as (coalesce(btrim(offer), '') <> '') stored,
  company_key text generated always as (lower(company)) stored,
  brand_key text generated always as (lower(brand)) stored,
  search_tsv tsvector generated always as (
    to_tsvector('english', coalesce(campaign_text, '') || ' ' || coalesce(full_campaign_text, ''))
  ) stored,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (tenant_id, source_key)
);
-- "Newest first, filtered": the filter keys ride along in the index so a selective
-- filter is checked on index entries, without visiting the table row by row.
create index if not exists campaigns_tenant_date on public.campaigns (tenant_id, capture_date desc, id)
  include (channel_key, sentiment_key, style_key, has_offer, value_prop_keys);
create index if not exists campaigns_tenant_channel on public.campaigns (tenant_id, channel_key, capture_date desc);
create index if not exists campaigns_tenant_company on public.campaigns (tenant_id, company_key);
create index if not exists campaigns_tenant_brand on public.campaigns (tenant_id, brand_key);
create index if not exists campaigns_value_props on public.campaigns using gin (value_prop_keys);
create index if not exists campaigns_search on public.campaigns using gin (search_tsv);

-- ---------------------------------------------------------------------------
-- Competitors
-- ---------------------------------------------------------------------------

create table if not exists public.competitors (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  -- Null: the competitor applies to every campaign of the tenant.
  campaign_id uuid references public.campaigns (id) on delete set null,
  key text not null check (key ~ '^[a-z0-9][a-z0-9_-]*$'),
  display_name text not null,
  full_description text not null,
  updated_at timestamptz not null default now(),
  unique (tenant_id, key)
);
create index if not exists competitors_campaign on public.competitors (tenant_id, campaign_id);

-- ---------------------------------------------------------------------------
-- Products and supplier prices (sheet metal catalogue for quotes)
-- ---------------------------------------------------------------------------

create table if not exists public.products (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  code text not null,
  family text not null check (family in ('stainless', 'aluminium', 'mild_steel')),
  grade text not null,
  form text not null check (form in ('sheet', 'plate', 'tube', 'angle', 'bar')),
  finish text,
  thickness_mm numeric(8, 2) not null check (thickness_mm > 0),
  width_mm numeric(10, 1),
  length_mm numeric(10, 1),
  size_label text not null,
  description text not null default '',
  mass_kg numeric(10, 3),
  updated_at timestamptz not null default now(),
  unique (tenant_id, code)
);
create index if not exists products_spec on public.products (tenant_id, family, grade, form, thickness_mm);

create table if not exists public.supplier_prices (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  product_id uuid not null references public.products (id) on delete cascade,
  supplier text not null,
  sku text not null,
  uom text not null check (uom in ('sheet', 'kg', 'm', 'each')),
  price_per_uom numeric(12, 2) not null check (price_per_uom >= 0),
  lead_time_days integer not null check (lead_time_days >= 0),
  delivery_cost numeric(10, 2) not null default 0 check (delivery_cost >= 0),
  min_order_qty numeric(10, 2) not null default 1,
  notes text,
  updated_at timestamptz not null default now(),
  unique (tenant_id, supplier, sku)
);
create index if not exists supplier_prices_product on public.supplier_prices (product_id, price_per_uom);

-- ---------------------------------------------------------------------------
-- A business and its receptionist data: bookings, policies, FAQs
-- ---------------------------------------------------------------------------

create table if not exists public.businesses (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  slug text not null,
  name text not null,
  industry text,
  phone text,
  email text,
  address text,
  website text,
  timezone text not null default 'UTC',
  -- [{ "name", "description", "duration_minutes", "price" }]
  services jsonb not null default '[]'::jsonb,
  -- { "monday": [{ "open": "09:00", "close": "17:00" }], ..., "sunday": [] }
  working_hours jsonb not null default '{}'::jsonb,
  updated_at timestamptz not null default now(),
  unique (tenant_id, slug)
);

create table if not exists public.bookings (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  business_id uuid not null references public.businesses (id) on delete cascade,
  reference text not null,
  customer_name text not null,
  customer_phone text,
  customer_email text,
  phone_key text generated always as (sb_private.phone_key(customer_phone)) stored,
  service text not null,
  booking_datetime timestamptz not null,
  duration_minutes integer not null default 30,
  status text not null check (status in ('pending', 'confirmed', 'completed', 'cancelled', 'no_show')),
  price numeric(10, 2),
  customer_notes text,
  internal_notes text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (tenant_id, reference)
);
create index if not exists bookings_phone on public.bookings (tenant_id, phone_key, booking_datetime desc);

create table if not exists public.policies (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  business_id uuid not null references public.businesses (id) on delete cascade,
  topic text not null,
  title text not null,
  content text not null,
  updated_at timestamptz not null default now(),
  unique (business_id, topic)
);

create table if not exists public.faqs (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  business_id uuid not null references public.businesses (id) on delete cascade,
  topic text not null,
  question text not null,
  answer text not null,
  tags text[] not null default '{}',
  updated_at timestamptz not null default now(),
  unique (business_id, question)
);

-- tenants -> businesses / campaigns, added once both sides exist.
do $$
begin
  if not exists (select 1 from pg_constraint where conname = 'tenants_business_fk') then
    alter table public.tenants add constraint tenants_business_fk
      foreign key (business_id) references public.businesses (id) on delete set null;
  end if;
  if not exists (select 1 from pg_constraint where conname = 'tenants_default_campaign_fk') then
    alter table public.tenants add constraint tenants_default_campaign_fk
      foreign key (default_campaign_id) references public.campaigns (id) on delete set null;
  end if;
end $$;

-- ---------------------------------------------------------------------------
-- Import staging: an import streams rows here in batches, then one call moves them
-- into place in a single transaction (the only way to be atomic through PostgREST).
-- ---------------------------------------------------------------------------

create table if not exists sb_private.import_staging (
  import_id uuid not null,
  seq integer not null,
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  table_name text not null,
  rows jsonb not null,
  created_at timestamptz not null default now(),
  primary key (import_id, seq)
);
