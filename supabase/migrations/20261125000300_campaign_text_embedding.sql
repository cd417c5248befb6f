-- semantic_search's `embedding_field` (seed 003): besides `embedding` (the whole campaign:
-- company, offer, value props and both texts), a second vector of the ad copy alone
-- (`campaign_text`), so "campaigns whose copy talks about X" can rank by the copy. Created
-- only where pgvector is (like 20261101000100); `npm run db:embed` fills both.

create or replace function sb_private.setup_text_vectors()
returns boolean
language plpgsql
as $fn$
declare
  vec_type text;
  ext_schema text;
  ext_version text;
  iterative boolean;
begin
  select format_type(a.atttypid, a.atttypmod) into vec_type
  from pg_attribute a
  where a.attrelid = 'public.campaigns'::regclass and a.attname = 'embedding' and not a.attisdropped;
  if vec_type is null then
    return false;
  end if;
  select n.nspname, e.extversion into ext_schema, ext_version
  from pg_extension e join pg_namespace n on n.oid = e.extnamespace
  where e.extname = 'vector';
  iterative := string_to_array(ext_version, '.')::int[] >= array[0, 8];
  -- format_type names the type unqualified when its schema is on the search path; qualify it.
  vec_type := format('%I.%s', ext_schema, regexp_replace(vec_type, '^.*\.', ''));

  if not exists (
    select 1 from pg_attribute
    where attrelid = 'public.campaigns'::regclass and attname = 'text_embedding' and not attisdropped
  ) then
    execute format('alter table public.campaigns add column text_embedding %s', vec_type);
  end if;
  execute format(
    'create index if not exists campaigns_text_embedding_hnsw on public.campaigns using hnsw (text_embedding %I.vector_cosine_ops)',
    ext_schema);
  create index if not exists campaigns_text_embedding_missing on public.campaigns (tenant_id, id) where text_embedding is null;

  -- Stale vectors are dropped on edit: the whole-campaign one on any of its inputs, the copy one on the copy.
  create or replace function sb_private.campaigns_clear_stale_embedding()
  returns trigger
  language plpgsql
  as $t$
  begin
    if new.campaign_text is distinct from old.campaign_text
       or new.full_campaign_text is distinct from old.full_campaign_text
       or new.offer is distinct from old.offer
       or new.company is distinct from old.company
       or new.brand is distinct from old.brand then
      new.embedding := null;
    end if;
    if new.campaign_text is distinct from old.campaign_text then
      new.text_embedding := null;
    end if;
    return new;
  end
  $t$;

  -- The copy-only search: search_campaigns' plan (bounded HNSW scan, exact fallback over the
  -- 500 most recent matches) over text_embedding.
  drop function if exists public.search_campaigns_by_copy(uuid, real[], integer, text[], text[], text[], text[], date, date, boolean, text[]);
  execute format($body$
    create function public.search_campaigns_by_copy(
      p_tenant_id uuid,
      p_query_embedding real[],
      p_limit integer default 10,
      p_channels text[] default null,
      p_value_props text[] default null,
      p_sentiments text[] default null,
      p_visual_styles text[] default null,
      p_date_from date default null,
      p_date_to date default null,
      p_has_offer boolean default null,
      p_companies text[] default null
    )
    returns table (
      id uuid, company text, brand text, channel text, offer text, key_value_props text[],
      imagery_sentiment text, imagery_visual_style text, capture_date date,
      campaign_text text, full_campaign_text text, similarity double precision
    )
    language plpgsql stable
    as $f$
    declare
      q %1$s := p_query_embedding::%1$s;
      lim integer := least(greatest(coalesce(p_limit, 10), 1), 100);
    begin
      %3$s
      return query
      with ann as materialized (
        select c.id, c.text_embedding operator(%2$I.<=>) q as distance
        from public.campaigns c
        where c.tenant_id = p_tenant_id
          and c.text_embedding is not null
          and (p_channels is null or c.channel_key = any (sb_private.lower_array(p_channels)))
          and (p_value_props is null or c.value_prop_keys && sb_private.lower_array(p_value_props))
          and (p_sentiments is null or c.sentiment_key = any (sb_private.lower_array(p_sentiments)))
          and (p_visual_styles is null or c.style_key = any (sb_private.lower_array(p_visual_styles)))
          and (p_date_from is null or c.capture_date >= p_date_from)
          and (p_date_to is null or c.capture_date <= p_date_to)
          and (p_has_offer is null or c.has_offer = p_has_offer)
          and (p_companies is null
               or c.company_key = any (sb_private.lower_array(p_companies))
               or c.brand_key = any (sb_private.lower_array(p_companies)))
        order by c.text_embedding operator(%2$I.<=>) q
        limit lim
      ),
      enough as (
        select count(*) >= lim as ok from ann
      ),
      exact as (
        select w.id, t.distance
        from (
          select c.id
          from public.campaigns c
          where not (select e.ok from enough e)
            and c.tenant_id = p_tenant_id
            and (p_channels is null or c.channel_key = any (sb_private.lower_array(p_channels)))
            and (p_value_props is null or c.value_prop_keys && sb_private.lower_array(p_value_props))
            and (p_sentiments is null or c.sentiment_key = any (sb_private.lower_array(p_sentiments)))
            and (p_visual_styles is null or c.style_key = any (sb_private.lower_array(p_visual_styles)))
            and (p_date_from is null or c.capture_date >= p_date_from)
            and (p_date_to is null or c.capture_date <= p_date_to)
            and (p_has_offer is null or c.has_offer = p_has_offer)
            and (p_companies is null
                 or c.company_key = any (sb_private.lower_array(p_companies))
                 or c.brand_key = any (sb_private.lower_array(p_companies)))
          order by c.capture_date desc, c.id
          limit 500
        ) w
        cross join lateral (
          select x.text_embedding operator(%2$I.<=>) q as distance
          from public.campaigns x
          where x.id = w.id and x.text_embedding is not null
          offset 0
        ) t
        order by t.distance
        limit lim
      ),
      hits as (
        select a.id, a.distance from ann a where (select e.ok from enough e)
        union all
        select x.id, x.distance from exact x
      )
      select c.id, c.company, c.brand, c.channel, c.offer, c.key_value_props,
             c.imagery_sentiment, c.imagery_visual_style, c.capture_date,
             c.campaign_text, c.full_campaign_text, (1 - h.distance)::double precision
      from hits h join public.campaigns c on c.id = h.id
      order by h.distance, c.id;
    end
    $f$
  $body$,
    vec_type,
    ext_schema,
    case when iterative
      then $s$perform set_config('hnsw.iterative_scan', 'relaxed_order', true);
      perform set_config('hnsw.max_scan_tuples', '1000', true);
      perform set_config('hnsw.ef_search', '100', true);$s$
      else $s$perform set_config('hnsw.ef_search', '100', true);$s$
    end);
  return true;
end
$fn$;

-- Same signature as the real one, so callers and the catalogue do not depend on pgvector.
create or replace function public.search_campaigns_by_copy(
  p_tenant_id uuid,
  p_query_embedding real[],
  p_limit integer default 10,
  p_channels text[] default null,
  p_value_props text[] default null,
  p_sentiments text[] default null,
  p_visual_styles text[] default null,
  p_date_from date default null,
  p_date_to date default null,
  p_has_offer boolean default null,
  p_companies text[] default null
)
returns table (
  id uuid, company text, brand text, channel text, offer text, key_value_props text[],
  imagery_sentiment text, imagery_visual_style text, capture_date date,
  campaign_text text, full_campaign_text text, similarity double precision
)
language plpgsql stable
as $$
begin
  raise exception 'semantic search is unavailable: pgvector is not installed in this database'
    using errcode = 'feature_not_supported';
end
$$;

select sb_private.setup_text_vectors();

-- `npm run db:embed`: campaigns whose copy has no vector yet, and storing them.
create or replace function public.campaigns_missing_text_embeddings(p_tenant_id uuid, p_limit integer default 100)
returns table (id uuid, campaign_text text)
language plpgsql stable
as $$
begin
  if not exists (select 1 from pg_attribute
                 where attrelid = 'public.campaigns'::regclass and attname = 'text_embedding' and not attisdropped) then
    return;
  end if;
  return query execute
    'select c.id, c.campaign_text
     from public.campaigns c
     where c.tenant_id = $1 and c.text_embedding is null and btrim(c.campaign_text) <> ''''
     order by c.id
     limit least(greatest(coalesce($2, 100), 1), 1000)'
    using p_tenant_id, p_limit;
end
$$;

-- p_items: [{ "id": uuid, "embedding": [numbers] }]; rows of other tenants are ignored.
create or replace function public.set_campaign_text_embeddings(p_tenant_id uuid, p_items jsonb)
returns table (updated integer)
language plpgsql
as $$
declare
  n integer;
begin
  if not exists (select 1 from pg_attribute
                 where attrelid = 'public.campaigns'::regclass and attname = 'text_embedding' and not attisdropped) then
    raise exception 'semantic search is unavailable: pgvector is not installed in this database'
      using errcode = 'feature_not_supported';
  end if;
  execute
    'update public.campaigns c
     set text_embedding = array(select jsonb_array_elements_text(i.value -> ''embedding'')::real)
     from jsonb_array_elements($2) as i(value)
     where c.tenant_id = $1 and c.id = (i.value ->> ''id'')::uuid'
    using p_tenant_id, p_items;
  get diagnostics n = row_count;
  return query select n;
end
$$;

-- What the data port checks at startup (see 20261101000600).
create or replace function public.schema_info()
returns table (version text, vectors_available boolean, embedding_dimensions integer)
language sql stable
as $$
  select '20261125000300'::text,
         a.attname is not null,
         case when a.attname is not null and a.atttypmod > 0 then a.atttypmod end
  from (select 1) one
  left join pg_attribute a
    on a.attrelid = 'public.campaigns'::regclass and a.attname = 'embedding' and not a.attisdropped
$$;

-- Supabase only: the same lockdown as the other functions (see 20261101000600).
do $$
declare
  f regprocedure;
begin
  if not exists (select 1 from pg_roles where rolname = 'anon') then
    return;
  end if;
  for f in
    select p.oid::regprocedure
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'public' and p.proname in ('search_campaigns_by_copy', 'campaigns_missing_text_embeddings', 'set_campaign_text_embeddings', 'schema_info')
  loop
    execute format('revoke execute on function %s from public, anon, authenticated', f);
    if exists (select 1 from pg_roles where rolname = 'service_role') then
      execute format('grant execute on function %s to service_role', f);
    end if;
  end loop;
end $$;
