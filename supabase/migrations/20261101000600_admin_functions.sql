-- Admin functions (import, embeddings, tenants, schema check) and Supabase grants.
-- These are callable through every transport too, so `npm run import` and
-- `npm run db:embed` work against Supabase, but the data port does not offer them to
-- tools.

create or replace function sb_private.upsert_business_rows(p_tenant_id uuid, p_table text, p_rows jsonb)
returns table (inserted integer, updated integer)
language plpgsql
as $$
begin
  case p_table
  when 'bookings' then
    return query
    with src as materialized (
      select r.*, sb_private.import_business(p_tenant_id, r.business_slug, r._line) as business_id
      from jsonb_to_recordset(p_rows) as r(_line integer, business_slug text, reference text, customer_name text,
        customer_phone text, customer_email text, service text, booking_datetime timestamptz,
        duration_minutes integer, status text, price numeric, customer_notes text, internal_notes text)
    ),
    up as (
      insert into public.bookings as t (tenant_id, business_id, reference, customer_name, customer_phone,
        customer_email, service, booking_datetime, duration_minutes, status, price, customer_notes, internal_notes)
      select p_tenant_id, s.business_id, s.reference, s.customer_name, s.customer_phone, s.customer_email, s.service,
             s.booking_datetime, coalesce(s.duration_minutes, 30), s.status, s.price, s.customer_notes, s.internal_notes
      from src s
      on conflict (tenant_id, reference) do update set
        business_id = excluded.business_id, customer_name = excluded.customer_name,
        customer_phone = excluded.customer_phone, customer_email = excluded.customer_email,
        service = excluded.service, booking_datetime = excluded.booking_datetime,
        duration_minutes = excluded.duration_minutes, status = excluded.status, price = excluded.price,
        customer_notes = excluded.customer_notes, internal_notes = excluded.internal_notes, updated_at = now()
      where (t.business_id, t.customer_name, t.customer_phone, t.customer_email, t.service, t.booking_datetime,
             t.duration_minutes, t.status, t.price, t.customer_notes, t.internal_notes)
            is distinct from
            (excluded.business_id, excluded.customer_name, excluded.customer_phone, excluded.customer_email,
             excluded.service, excluded.booking_datetime, excluded.duration_minutes, excluded.status,
             excluded.price, excluded.customer_notes, excluded.internal_notes)
      returning (xmax = 0) as ins
    )
    select (count(*) filter (where ins))::integer, (count(*) filter (where not ins))::integer from up;

  when 'policies' then
    return query
    with src as materialized (
      select r.*, sb_private.import_business(p_tenant_id, r.business_slug, r._line) as business_id
      from jsonb_to_recordset(p_rows) as r(_line integer, business_slug text, topic text, title text, content text)
    ),
    up as (
      insert into public.policies as t (tenant_id, business_id, topic, title, content)
      select p_tenant_id, s.business_id, s.topic, s.title, s.content from src s
      on conflict (business_id, topic) do update set title = excluded.title, content = excluded.content,
        updated_at = now()
      where (t.title, t.content) is distinct from (excluded.title, excluded.content)
      returning (xmax = 0) as ins
    )
    select (count(*) filter (where ins))::integer, (count(*) filter (where not ins))::integer from up;

  when 'faqs' then
    return query
    with src as materialized (
      select r.*, sb_private.import_business(p_tenant_id, r.business_slug, r._line) as business_id
      from jsonb_to_recordset(p_rows) as r(_line integer, business_slug text, topic text, question text,
        answer text, tags text[])
    ),
    up as (
      insert into public.faqs as t (tenant_id, business_id, topic, question, answer, tags)
      select p_tenant_id, s.business_id, s.topic, s.question, s.answer, coalesce(s.tags, '{}') from src s
      on conflict (business_id, question) do update set topic = excluded.topic, answer = excluded.answer,
        tags = excluded.tags, updated_at = now()
      where (t.topic, t.answer, t.tags) is distinct from (excluded.topic, excluded.answer, excluded.tags)
      returning (xmax = 0) as ins
    )
    select (count(*) filter (where ins))::integer, (count(*) filter (where not ins))::integer from up;
  end case;
end
$$;

-- Tenants are keyed by slug; business_slug and default_campaign_key are looked up
-- within the tenant being written.
create or replace function sb_private.upsert_tenants(p_rows jsonb)
returns table (inserted integer, updated integer)
language plpgsql
as $$
declare
  r record;
  tid uuid;
  was_new boolean;
  ref uuid;
  n_ins integer := 0;
  n_upd integer := 0;
begin
  for r in
    select * from jsonb_to_recordset(p_rows) as x(_line integer, slug text, name text, settings jsonb,
      business_slug text, default_campaign_key text)
    order by x._line
  loop
    select t.id into tid from public.tenants t where t.slug = r.slug;
    was_new := tid is null;
    if was_new then
      insert into public.tenants (slug, name, settings) values (r.slug, r.name, coalesce(r.settings, '{}'))
      returning id into tid;
      n_ins := n_ins + 1;
    elsif exists (select 1 from public.tenants t where t.id = tid
                  and (t.name, t.settings) is distinct from (r.name, coalesce(r.settings, t.settings))) then
      update public.tenants t set name = r.name, settings = coalesce(r.settings, t.settings), updated_at = now()
      where t.id = tid;
      n_upd := n_upd + 1;
    end if;

    if r.business_slug is not null then
      select b.id into ref from public.businesses b where b.tenant_id = tid and b.slug = r.business_slug;
      if ref is null then perform sb_private.fail(r._line, format('unknown business_slug %L', r.business_slug)); end if;
      update public.tenants t set business_id = ref where t.id = tid and t.business_id is distinct from ref;
    end if;
    if r.default_campaign_key is not null then
      select c.id into ref from public.campaigns c where c.tenant_id = tid and c.source_key = r.default_campaign_key;
      if ref is null then
        perform sb_private.fail(r._line, format('unknown default_campaign_key %L', r.default_campaign_key));
      end if;
      update public.tenants t set default_campaign_id = ref where t.id = tid and t.default_campaign_id is distinct from ref;
    end if;
  end loop;
  return query select n_ins, n_upd;
end
$$;

create or replace function public.import_stage(
  p_tenant_id uuid, p_import_id uuid, p_table text, p_seq integer, p_rows jsonb
)
returns table (staged integer)
language plpgsql
as $$
begin
  if p_table not in ('campaigns', 'competitors', 'products', 'supplier_prices', 'businesses', 'bookings',
                     'policies', 'faqs', 'tenants', 'tenant_workspaces') then
    raise exception using errcode = 'SB001', message = format('cannot import into %L', p_table);
  end if;
  if not exists (select 1 from public.tenants t where t.id = p_tenant_id) then
    raise exception using errcode = 'SB001', message = 'unknown tenant';
  end if;
  if jsonb_typeof(p_rows) <> 'array' then
    raise exception using errcode = 'SB001', message = 'rows must be a JSON array';
  end if;
  insert into sb_private.import_staging (import_id, seq, tenant_id, table_name, rows)
  values (p_import_id, p_seq, p_tenant_id, p_table, p_rows);
  return query select jsonb_array_length(p_rows);
end
$$;

-- Moves every staged batch of one import into place. One call is one transaction, so
-- either all rows land or none do.
create or replace function public.import_commit(p_tenant_id uuid, p_import_id uuid)
returns table (table_name text, inserted integer, updated integer, total integer)
language plpgsql
as $$
declare
  b record;
  res record;
  tbl text;
  n_ins integer := 0;
  n_upd integer := 0;
  n_rows integer := 0;
begin
  for b in
    select s.table_name as tname, s.rows as batch
    from sb_private.import_staging s
    where s.import_id = p_import_id and s.tenant_id = p_tenant_id
    order by s.seq
  loop
    select * into res from sb_private.upsert_rows(p_tenant_id, b.tname, b.batch);
    tbl := b.tname;
    n_ins := n_ins + res.inserted;
    n_upd := n_upd + res.updated;
    n_rows := n_rows + jsonb_array_length(b.batch);
  end loop;
  if tbl is null then
    raise exception using errcode = 'SB001', message = 'nothing was staged for this import';
  end if;
  delete from sb_private.import_staging s where s.import_id = p_import_id;
  -- Leftovers of imports that died half-way.
  delete from sb_private.import_staging s where s.created_at < now() - interval '1 day';
  return query select tbl, n_ins, n_upd, n_rows;
end
$$;

create or replace function public.import_abort(p_tenant_id uuid, p_import_id uuid)
returns table (discarded integer)
language sql
as $$
  with d as (
    delete from sb_private.import_staging s
    where s.import_id = p_import_id and s.tenant_id = p_tenant_id
    returning jsonb_array_length(s.rows) as n
  )
  select coalesce(sum(d.n), 0)::integer from d
$$;

-- Campaigns whose embedding is missing (none without pgvector).
create or replace function public.campaigns_missing_embeddings(p_tenant_id uuid, p_limit integer default 100)
returns table (
  id uuid, company text, brand text, channel text, offer text, key_value_props text[],
  campaign_text text, full_campaign_text text
)
language plpgsql stable
as $$
begin
  if not exists (select 1 from pg_attribute
                 where attrelid = 'public.campaigns'::regclass and attname = 'embedding' and not attisdropped) then
    return;
  end if;
  return query execute
    'select c.id, c.company, c.brand, c.channel, c.offer, c.key_value_props, c.campaign_text, c.full_campaign_text
     from public.campaigns c
     where c.tenant_id = $1 and c.embedding is null
     order by c.id
     limit least(greatest(coalesce($2, 100), 1), 1000)'
    using p_tenant_id, p_limit;
end
$$;

-- p_items: [{ "id": uuid, "embedding": [numbers] }]; rows of other tenants are ignored.
create or replace function public.set_campaign_embeddings(p_tenant_id uuid, p_items jsonb)
returns table (updated integer)
language plpgsql
as $$
declare
  n integer;
begin
  if not exists (select 1 from pg_attribute
                 where attrelid = 'public.campaigns'::regclass and attname = 'embedding' and not attisdropped) then
    raise exception 'semantic search is unavailable: pgvector is not installed in this database'
      using errcode = 'feature_not_supported';
  end if;
  -- real[] converts to vector by assignment; a wrong length fails on the column's dimension.
  execute
    'update public.campaigns c
     set embedding = array(select jsonb_array_elements_text(i.value -> ''embedding'')::real)
     from jsonb_array_elements($2) as i(value)
     where c.tenant_id = $1 and c.id = (i.value ->> ''id'')::uuid'
    using p_tenant_id, p_items;
  get diagnostics n = row_count;
  return query select n;
end
$$;

create or replace function public.list_tenants()
returns table (id uuid, slug text, name text, is_default boolean)
language sql stable
as $$
  select t.id, t.slug, t.name, t.is_default from public.tenants t order by t.is_default desc, t.slug
$$;

-- What the data port checks at startup. The version is the newest migration's; each
-- later migration redefines this function with its own.
create or replace function public.schema_info()
returns table (version text, vectors_available boolean, embedding_dimensions integer)
language sql stable
as $$
  select '20261101000600'::text,
         a.attname is not null,
         case when a.attname is not null and a.atttypmod > 0 then a.atttypmod end
  from (select 1) one
  left join pg_attribute a
    on a.attrelid = 'public.campaigns'::regclass and a.attname = 'embedding' and not a.attisdropped
$$;

-- Supabase only (detected by its `anon` role): PostgREST exposes `public` to the anon
-- and authenticated roles, so they get nothing of ours: no function grants, and row
-- level security with no policies on every table. The service role (what
-- SUPABASE_SERVICE_ROLE_KEY signs in as) bypasses RLS and gets the functions and what
-- they touch. Only Switchboard's objects are changed: a project's public schema may
-- hold other things. On plain Postgres and PGlite nothing changes, so an application
-- role other than the owner keeps the default privileges.
do $$
declare
  f regprocedure;
  t text;
begin
  if not exists (select 1 from pg_roles where rolname = 'anon') then
    return;
  end if;
  for f in
    select p.oid::regprocedure
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'public' and p.proname in (
      'default_tenant', 'resolve_tenant', 'search_campaigns', 'search_campaigns_by_text', 'filter_campaigns',
      'list_campaign_facets', 'get_campaigns', 'embedding_status', 'list_competitor_ids', 'get_competitor',
      'search_products', 'get_pricing_for_material', 'compare_suppliers', 'get_business', 'get_business_services',
      'get_working_hours', 'get_latest_booking', 'get_booking_by_id', 'get_policies', 'get_faqs', 'import_stage',
      'import_commit', 'import_abort', 'campaigns_missing_embeddings', 'set_campaign_embeddings', 'list_tenants',
      'schema_info')
  loop
    execute format('revoke execute on function %s from public, anon, authenticated', f);
    if exists (select 1 from pg_roles where rolname = 'service_role') then
      execute format('grant execute on function %s to service_role', f);
    end if;
  end loop;
  foreach t in array array['tenants', 'tenant_workspaces', 'campaigns', 'competitors', 'products',
                           'supplier_prices', 'businesses', 'bookings', 'policies', 'faqs'] loop
    execute format('alter table public.%I enable row level security', t);
    execute format('revoke all on public.%I from anon, authenticated', t);
    if exists (select 1 from pg_roles where rolname = 'service_role') then
      execute format('grant all on public.%I to service_role', t);
    end if;
  end loop;
  if exists (select 1 from pg_roles where rolname = 'service_role') then
    grant usage on schema sb_private to service_role;
    grant execute on all functions in schema sb_private to service_role;
    grant all on all tables in schema sb_private to service_role;
  end if;
end $$;
