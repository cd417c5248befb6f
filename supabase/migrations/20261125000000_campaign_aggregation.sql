-- Campaign counts grouped by one dimension ("how many campaigns per channel?", "which
-- companies ran the most cash-back offers last quarter?"), under the same filters as
-- filter_campaigns. Value props are an array: a campaign counts once under each of its
-- value props. Empty values group as null (the caller shows them as "(none)").
create or replace function public.aggregate_campaigns(
  p_tenant_id uuid,
  p_group_by text,
  p_channels text[] default null,
  p_value_props text[] default null,
  p_sentiments text[] default null,
  p_visual_styles text[] default null,
  p_date_from date default null,
  p_date_to date default null,
  p_has_offer boolean default null,
  p_companies text[] default null,
  p_limit integer default 10
)
returns table (value text, campaigns integer, total integer, groups integer)
language plpgsql stable
as $$
begin
  if p_group_by is null or p_group_by not in ('channel', 'company', 'brand', 'value_prop', 'sentiment', 'visual_style', 'month') then
    raise exception 'group_by must be one of channel, company, brand, value_prop, sentiment, visual_style, month (got %)', coalesce(p_group_by, 'null')
      using errcode = '22023';
  end if;
  return query
  with matched as (
    select c.*
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
  ),
  keyed as (
    select nullif(btrim(g.v), '') as v
    from matched m
    cross join lateral unnest(
      case p_group_by
        when 'value_prop' then coalesce(nullif(m.key_value_props, '{}'), array[null::text])
        else array[case p_group_by
          when 'channel' then m.channel
          when 'company' then m.company
          when 'brand' then m.brand
          when 'sentiment' then m.imagery_sentiment
          when 'visual_style' then m.imagery_visual_style
          when 'month' then to_char(m.capture_date, 'YYYY-MM')
        end]
      end
    ) as g(v)
  ),
  counted as (
    select k.v, count(*)::integer as n
    from keyed k
    group by k.v
  )
  select c.v, c.n,
         (select count(*)::integer from matched),
         (select count(*)::integer from counted)
  from counted c
  order by c.n desc, c.v nulls last
  limit least(greatest(coalesce(p_limit, 10), 1), 50);
end
$$;

-- What the data port checks at startup (see 20261101000600).
create or replace function public.schema_info()
returns table (version text, vectors_available boolean, embedding_dimensions integer)
language sql stable
as $$
  select '20261125000000'::text,
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
    where n.nspname = 'public' and p.proname in ('aggregate_campaigns', 'schema_info')
  loop
    execute format('revoke execute on function %s from public, anon, authenticated', f);
    if exists (select 1 from pg_roles where rolname = 'service_role') then
      execute format('grant execute on function %s to service_role', f);
    end if;
  end loop;
end $$;
