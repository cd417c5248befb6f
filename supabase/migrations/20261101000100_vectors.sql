-- Optional pgvector support for semantic campaign search.
--
-- Supabase has pgvector and PGlite bundles it; a stock Debian Postgres does not. So
-- everything that names the `vector` type is created dynamically, only when the
-- extension is available. Without it, `search_campaigns` still exists with the same
-- signature but raises feature_not_supported (0A000), `schema_info()` reports
-- vectors_available = false, and the tools fall back to full-text search.
--
-- Embedding dimension: read from the `switchboard.embedding_dimensions` setting, which
-- `npm run db:migrate` and the embedded database set from EMBEDDING_DIMENSIONS; when
-- unset (e.g. `supabase db push`) it is 1536 (OpenAI text-embedding-3-small). A fixed
-- dimension is what lets the HNSW index exist; the data port checks at startup that
-- EMBEDDING_DIMENSIONS matches the column.

create or replace function sb_private.setup_vectors()
returns boolean
language plpgsql
as $fn$
declare
  dims integer := coalesce(nullif(current_setting('switchboard.embedding_dimensions', true), '')::integer, 1536);
  ext_schema text;
  ext_version text;
  iterative boolean;
  body text;
begin
  if not exists (select 1 from pg_available_extensions where name = 'vector') then
    return false;
  end if;

  if not exists (select 1 from pg_extension where extname = 'vector') then
    -- Supabase keeps extensions in their own schema.
    if exists (select 1 from pg_namespace where nspname = 'extensions') then
      create extension if not exists vector with schema extensions;
    else
      create extension if not exists vector;
    end if;
  end if;

  select n.nspname, e.extversion into ext_schema, ext_version
  from pg_extension e join pg_namespace n on n.oid = e.extnamespace
  where e.extname = 'vector';

  -- Iterative index scans (pgvector >= 0.8) keep filtered searches from coming back
  -- short when the tenant or the filters are selective.
  iterative := string_to_array(ext_version, '.')::int[] >= array[0, 8];

  if not exists (
    select 1 from pg_attribute
    where attrelid = 'public.campaigns'::regclass and attname = 'embedding' and not attisdropped
  ) then
    execute format('alter table public.campaigns add column embedding %I.vector(%s)', ext_schema, dims);
  end if;

  execute format(
    'create index if not exists campaigns_embedding_hnsw on public.campaigns using hnsw (embedding %I.vector_cosine_ops)',
    ext_schema);
  -- `npm run db:embed` pages through the rows still missing an embedding.
  create index if not exists campaigns_embedding_missing on public.campaigns (tenant_id, id) where embedding is null;

  -- The stub below is replaced; drop first because the return type may differ.
  drop function if exists public.search_campaigns(uuid, real[], integer, text[], text[], text[], text[], date, date, boolean, text[]);

  body := format($body$
    create function public.search_campaigns(
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
      q %1$I.vector(%2$s) := p_query_embedding::%1$I.vector(%2$s);
      lim integer := least(greatest(coalesce(p_limit, 10), 1), 100);
    begin
      %3$s
      -- The HNSW index answers fast unless the filters reject the query's neighbours:
      -- then the scan wades through thousands of them to find a handful that pass. So
      -- it gets a bounded budget (hnsw.max_scan_tuples, pgvector >= 0.8), and when it
      -- comes back short, the 500 most recent campaigns that pass the filters are
      -- ranked exactly instead (the same recency window as a filtered full-text search).
      return query
      with ann as materialized (
        select c.id, c.embedding operator(%1$I.<=>) q as distance
        from public.campaigns c
        where c.tenant_id = p_tenant_id
          and c.embedding is not null
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
        order by c.embedding operator(%1$I.<=>) q
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
          select x.embedding operator(%1$I.<=>) q as distance
          from public.campaigns x
          where x.id = w.id and x.embedding is not null
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
    ext_schema,
    dims,
    case when iterative
      then $s$perform set_config('hnsw.iterative_scan', 'relaxed_order', true);
      perform set_config('hnsw.max_scan_tuples', '1000', true);
      perform set_config('hnsw.ef_search', '100', true);$s$
      else $s$perform set_config('hnsw.ef_search', '100', true);$s$
    end);
  execute body;

  -- An edit to a campaign's text makes its embedding stale: drop it so
  -- `npm run db:embed` recomputes it.
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
    return new;
  end
  $t$;
  drop trigger if exists campaigns_clear_stale_embedding on public.campaigns;
  create trigger campaigns_clear_stale_embedding
    before update on public.campaigns
    for each row execute function sb_private.campaigns_clear_stale_embedding();

  return true;
end
$fn$;

-- Same signature as the real one, so callers and the catalogue do not depend on pgvector.
create or replace function public.search_campaigns(
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

select sb_private.setup_vectors();
