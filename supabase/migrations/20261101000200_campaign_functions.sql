-- Tenant resolution and the campaign reads.
--
-- Conventions for every callable function (the data port relies on them):
--  * arguments are named p_<name>; the tenant comes first where there is one;
--  * results are `returns table (...)`, so PGlite, pg and PostgREST all return arrays;
--  * language sql + stable where possible, so Postgres inlines the body into the
--    caller's query and plans it with the actual argument values;
--  * filters on an optional argument read `(p_x is null or ...)`.

create or replace function public.default_tenant()
returns table (
  id uuid, slug text, name text, business_id uuid, default_campaign_id uuid,
  settings jsonb, is_default boolean
)
language sql stable
as $$
  select t.id, t.slug, t.name, t.business_id, t.default_campaign_id, t.settings, t.is_default
  from public.tenants t
  where t.is_default
$$;

create or replace function public.resolve_tenant(p_platform text, p_workspace_id text)
returns table (
  id uuid, slug text, name text, business_id uuid, default_campaign_id uuid,
  settings jsonb, is_default boolean
)
language sql stable
as $$
  select t.id, t.slug, t.name, t.business_id, t.default_campaign_id, t.settings, t.is_default
  from public.tenant_workspaces w
  join public.tenants t on t.id = w.tenant_id
  where w.platform = p_platform and w.workspace_id = p_workspace_id
$$;

-- Full-text search. websearch_to_tsquery never raises on user input: quotes, `or` and
-- `-word` work, and a blank or stop-word-only query simply matches nothing.
--
-- Recent campaigns first, at a bounded cost: the query is matched against the 2,000
-- most recent campaigns that pass the filters (500 when there are filters), and the
-- matches there are ranked with ts_rank_cd. Only when that window holds fewer matches
-- than asked for is the whole history searched (through the GIN index; by then the
-- words are rare). A common word can match tens of thousands of campaigns, and ranking
-- them all, or walking the date index past thousands of non-matches, costs more than
-- this search's 30 ms budget. The tsquery is written inline so the planner folds it to
-- a constant.
create or replace function public.search_campaigns_by_text(
  p_tenant_id uuid,
  p_query text,
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
  campaign_text text, full_campaign_text text, rank double precision, snippet text
)
language sql stable
as $$
  -- Two steps so the first can be an index-only scan of campaigns_tenant_date (filter
  -- keys included): only the window's rows are then read from the table, by id.
  with window_ids as (
    select c.id, c.capture_date
    from public.campaigns c
    where c.tenant_id = p_tenant_id
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
    -- Filters make the walk longer per window row: a smaller window keeps it bounded.
    limit case when num_nonnulls(p_channels, p_value_props, p_sentiments, p_visual_styles, p_date_from, p_date_to,
                                 p_has_offer, p_companies) = 0 then 2000 else 500 end
  ),
  recent_hits as (
    select w.id, w.capture_date, t.search_tsv
    from window_ids w
    -- `offset 0` keeps this a per-row primary-key lookup: joined freely, the planner may
    -- underestimate a multi-word match and fetch every match in the table instead.
    cross join lateral (select c.search_tsv from public.campaigns c where c.id = w.id offset 0) t
    where t.search_tsv @@ websearch_to_tsquery('english', coalesce(p_query, ''))
  ),
  enough as (
    select count(*) >= least(greatest(coalesce(p_limit, 10), 1), 100) as ok from recent_hits
  ),
  older_hits as (
    select c.id, c.capture_date, c.search_tsv
    from public.campaigns c
    where not (select e.ok from enough e)
      and c.tenant_id = p_tenant_id
      and c.search_tsv @@ websearch_to_tsquery('english', coalesce(p_query, ''))
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
    limit 1000
  ),
  candidates as (
    select * from recent_hits where (select e.ok from enough e)
    union all
    select * from older_hits
  ),
  hits as (
    select k.id, k.capture_date,
           ts_rank_cd(k.search_tsv, websearch_to_tsquery('english', coalesce(p_query, '')), 1) as rank
    from candidates k
    order by rank desc, k.capture_date desc, k.id
    limit least(greatest(coalesce(p_limit, 10), 1), 100)
  )
  select c.id, c.company, c.brand, c.channel, c.offer, c.key_value_props,
         c.imagery_sentiment, c.imagery_visual_style, c.capture_date,
         c.campaign_text, c.full_campaign_text, h.rank::double precision,
         ts_headline('english', c.campaign_text || ' ' || c.full_campaign_text,
                     websearch_to_tsquery('english', coalesce(p_query, '')),
                     'MaxWords=28, MinWords=12, MaxFragments=1, StartSel=**, StopSel=**')
  from hits h
  join public.campaigns c on c.id = h.id
  order by h.rank desc, h.capture_date desc, h.id
$$;

-- Structured filters: every array argument matches any of its values, case-insensitively.
-- Two steps, like the full-text window: the matching ids come from an index-only scan
-- of campaigns_tenant_date (the filter keys are included in it), so a selective filter
-- costs index entries rather than table rows; only the page of results is read whole.
create or replace function public.filter_campaigns(
  p_tenant_id uuid,
  p_channels text[] default null,
  p_value_props text[] default null,
  p_sentiments text[] default null,
  p_visual_styles text[] default null,
  p_date_from date default null,
  p_date_to date default null,
  p_has_offer boolean default null,
  p_companies text[] default null,
  p_limit integer default 20
)
returns table (
  id uuid, company text, brand text, channel text, offer text, key_value_props text[],
  imagery_sentiment text, imagery_visual_style text, capture_date date,
  campaign_text text, full_campaign_text text
)
language sql stable
as $$
  with page as (
    select c.id, c.capture_date
    from public.campaigns c
    where c.tenant_id = p_tenant_id
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
    limit least(greatest(coalesce(p_limit, 20), 1), 200)
  )
  select c.id, c.company, c.brand, c.channel, c.offer, c.key_value_props,
         c.imagery_sentiment, c.imagery_visual_style, c.capture_date,
         c.campaign_text, c.full_campaign_text
  from page p
  cross join lateral (select * from public.campaigns x where x.id = p.id offset 0) c
  order by p.capture_date desc, p.id
$$;

-- The values the filters accept, with counts: tools build their enums from this.
create or replace function public.list_campaign_facets(p_tenant_id uuid)
returns table (facet text, value text, campaigns integer)
language sql stable
as $$
  select f.facet, min(f.value) as value, count(*)::integer as campaigns
  from (
    select 'channel' as facet, c.channel as value from public.campaigns c where c.tenant_id = p_tenant_id
    union all
    select 'value_prop', v from public.campaigns c, unnest(c.key_value_props) v where c.tenant_id = p_tenant_id
    union all
    select 'sentiment', c.imagery_sentiment from public.campaigns c
      where c.tenant_id = p_tenant_id and c.imagery_sentiment is not null
    union all
    select 'visual_style', c.imagery_visual_style from public.campaigns c
      where c.tenant_id = p_tenant_id and c.imagery_visual_style is not null
    union all
    select 'company', c.company from public.campaigns c where c.tenant_id = p_tenant_id
  ) f
  group by f.facet, lower(f.value)
  order by f.facet, campaigns desc, value
$$;

create or replace function public.get_campaigns(p_tenant_id uuid, p_ids uuid[])
returns table (
  id uuid, company text, brand text, channel text, offer text, key_value_props text[],
  imagery_sentiment text, imagery_visual_style text, capture_date date,
  campaign_text text, full_campaign_text text
)
language sql stable
as $$
  select c.id, c.company, c.brand, c.channel, c.offer, c.key_value_props,
         c.imagery_sentiment, c.imagery_visual_style, c.capture_date,
         c.campaign_text, c.full_campaign_text
  from public.campaigns c
  where c.tenant_id = p_tenant_id and c.id = any (p_ids)
  order by c.capture_date desc, c.id
  limit 200
$$;

-- How many of the tenant's campaigns have embeddings (0 without pgvector): lets the
-- campaign tools say why semantic search found nothing.
create or replace function public.embedding_status(p_tenant_id uuid)
returns table (campaigns integer, embedded integer)
language plpgsql stable
as $$
declare
  has_column boolean := exists (
    select 1 from pg_attribute
    where attrelid = 'public.campaigns'::regclass and attname = 'embedding' and not attisdropped);
begin
  if has_column then
    return query execute
      'select count(*)::integer, count(c.embedding)::integer from public.campaigns c where c.tenant_id = $1'
      using p_tenant_id;
  else
    return query select count(*)::integer, 0 from public.campaigns c where c.tenant_id = p_tenant_id;
  end if;
end
$$;
