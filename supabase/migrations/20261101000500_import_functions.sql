-- Import: rows validated by `npm run import` are staged in batches, then moved into
-- place by one import_commit call, i.e. in one transaction on every transport. Each
-- staged row carries `_line` (its line in the source file) so a row the database must
-- reject (an unknown product_code, say) is reported by line. Natural keys make
-- re-importing the same file a no-op.
--
-- Errors meant for the person importing are raised with SQLSTATE SB001; the data port
-- passes their message through.

create or replace function sb_private.fail(p_line integer, p_message text)
returns void
language plpgsql
as $$
begin
  raise exception using errcode = 'SB001', message = format('line %s: %s', p_line, p_message);
end
$$;

-- The business a row belongs to: by slug, or the tenant's own business.
create or replace function sb_private.import_business(p_tenant_id uuid, p_slug text, p_line integer)
returns uuid
language plpgsql
as $$
declare
  found_id uuid;
begin
  if p_slug is null then
    found_id := sb_private.tenant_business(p_tenant_id, null);
    if found_id is null then
      perform sb_private.fail(p_line, 'the tenant has no business yet: import businesses first or set business_slug');
    end if;
  else
    select b.id into found_id from public.businesses b where b.tenant_id = p_tenant_id and b.slug = p_slug;
    if found_id is null then
      perform sb_private.fail(p_line, format('unknown business_slug %L', p_slug));
    end if;
  end if;
  return found_id;
end
$$;

create or replace function sb_private.upsert_rows(p_tenant_id uuid, p_table text, p_rows jsonb)
returns table (inserted integer, updated integer)
language plpgsql
as $$
declare
  bad record;
begin
  case p_table
  when 'campaigns' then
    return query
    with up as (
      insert into public.campaigns as c (tenant_id, source_key, company, brand, channel, offer, key_value_props,
        imagery_sentiment, imagery_visual_style, capture_date, campaign_text, full_campaign_text)
      select p_tenant_id, r.source_key, r.company, r.brand, r.channel, r.offer, coalesce(r.key_value_props, '{}'),
             r.imagery_sentiment, r.imagery_visual_style, r.capture_date, coalesce(r.campaign_text, ''),
             coalesce(r.full_campaign_text, '')
      from jsonb_to_recordset(p_rows) as r(source_key text, company text, brand text, channel text, offer text,
        key_value_props text[], imagery_sentiment text, imagery_visual_style text, capture_date date,
        campaign_text text, full_campaign_text text)
      on conflict (tenant_id, source_key) do update set
        company = excluded.company, brand = excluded.brand, channel = excluded.channel, offer = excluded.offer,
        key_value_props = excluded.key_value_props, imagery_sentiment = excluded.imagery_sentiment,
        imagery_visual_style = excluded.imagery_visual_style, capture_date = excluded.capture_date,
        campaign_text = excluded.campaign_text, full_campaign_text = excluded.full_campaign_text, updated_at = now()
      where (c.company, c.brand, c.channel, c.offer, c.key_value_props, c.imagery_sentiment, c.imagery_visual_style,
             c.capture_date, c.campaign_text, c.full_campaign_text)
            is distinct from
            (excluded.company, excluded.brand, excluded.channel, excluded.offer, excluded.key_value_props,
             excluded.imagery_sentiment, excluded.imagery_visual_style, excluded.capture_date,
             excluded.campaign_text, excluded.full_campaign_text)
      returning (xmax = 0) as ins
    )
    select (count(*) filter (where ins))::integer, (count(*) filter (where not ins))::integer from up;

  when 'competitors' then
    select r._line, r.campaign_key into bad
    from jsonb_to_recordset(p_rows) as r(_line integer, campaign_key text)
    where r.campaign_key is not null
      and not exists (select 1 from public.campaigns c where c.tenant_id = p_tenant_id and c.source_key = r.campaign_key)
    order by r._line limit 1;
    if found then perform sb_private.fail(bad._line, format('unknown campaign_key %L', bad.campaign_key)); end if;

    return query
    with up as (
      insert into public.competitors as t (tenant_id, campaign_id, key, display_name, full_description)
      select p_tenant_id,
             (select c.id from public.campaigns c where c.tenant_id = p_tenant_id and c.source_key = r.campaign_key),
             r.key, r.display_name, r.full_description
      from jsonb_to_recordset(p_rows) as r(key text, display_name text, full_description text, campaign_key text)
      on conflict (tenant_id, key) do update set
        campaign_id = excluded.campaign_id, display_name = excluded.display_name,
        full_description = excluded.full_description, updated_at = now()
      where (t.campaign_id, t.display_name, t.full_description)
            is distinct from (excluded.campaign_id, excluded.display_name, excluded.full_description)
      returning (xmax = 0) as ins
    )
    select (count(*) filter (where ins))::integer, (count(*) filter (where not ins))::integer from up;

  when 'products' then
    return query
    with up as (
      insert into public.products as t (tenant_id, code, family, grade, form, finish, thickness_mm, width_mm,
        length_mm, size_label, description, mass_kg)
      select p_tenant_id, r.code, r.family, r.grade, r.form, r.finish, r.thickness_mm, r.width_mm, r.length_mm,
             r.size_label, coalesce(r.description, ''), r.mass_kg
      from jsonb_to_recordset(p_rows) as r(code text, family text, grade text, form text, finish text,
        thickness_mm numeric, width_mm numeric, length_mm numeric, size_label text, description text, mass_kg numeric)
      on conflict (tenant_id, code) do update set
        family = excluded.family, grade = excluded.grade, form = excluded.form, finish = excluded.finish,
        thickness_mm = excluded.thickness_mm, width_mm = excluded.width_mm, length_mm = excluded.length_mm,
        size_label = excluded.size_label, description = excluded.description, mass_kg = excluded.mass_kg,
        updated_at = now()
      where (t.family, t.grade, t.form, t.finish, t.thickness_mm, t.width_mm, t.length_mm, t.size_label,
             t.description, t.mass_kg)
            is distinct from
            (excluded.family, excluded.grade, excluded.form, excluded.finish, excluded.thickness_mm,
             excluded.width_mm, excluded.length_mm, excluded.size_label, excluded.description, excluded.mass_kg)
      returning (xmax = 0) as ins
    )
    select (count(*) filter (where ins))::integer, (count(*) filter (where not ins))::integer from up;

  when 'supplier_prices' then
    select r._line, r.product_code into bad
    from jsonb_to_recordset(p_rows) as r(_line integer, product_code text)
    where not exists (select 1 from public.products p where p.tenant_id = p_tenant_id and p.code = r.product_code)
    order by r._line limit 1;
    if found then perform sb_private.fail(bad._line, format('unknown product_code %L', bad.product_code)); end if;

    return query
    with up as (
      insert into public.supplier_prices as t (tenant_id, product_id, supplier, sku, uom, price_per_uom,
        lead_time_days, delivery_cost, min_order_qty, notes)
      select p_tenant_id, p.id, r.supplier, r.sku, r.uom, r.price_per_uom, r.lead_time_days,
             coalesce(r.delivery_cost, 0), coalesce(r.min_order_qty, 1), r.notes
      from jsonb_to_recordset(p_rows) as r(product_code text, supplier text, sku text, uom text,
        price_per_uom numeric, lead_time_days integer, delivery_cost numeric, min_order_qty numeric, notes text)
      join public.products p on p.tenant_id = p_tenant_id and p.code = r.product_code
      on conflict (tenant_id, supplier, sku) do update set
        product_id = excluded.product_id, uom = excluded.uom, price_per_uom = excluded.price_per_uom,
        lead_time_days = excluded.lead_time_days, delivery_cost = excluded.delivery_cost,
        min_order_qty = excluded.min_order_qty, notes = excluded.notes, updated_at = now()
      where (t.product_id, t.uom, t.price_per_uom, t.lead_time_days, t.delivery_cost, t.min_order_qty, t.notes)
            is distinct from
            (excluded.product_id, excluded.uom, excluded.price_per_uom, excluded.lead_time_days,
             excluded.delivery_cost, excluded.min_order_qty, excluded.notes)
      returning (xmax = 0) as ins
    )
    select (count(*) filter (where ins))::integer, (count(*) filter (where not ins))::integer from up;

  when 'businesses' then
    return query
    with up as (
      insert into public.businesses as t (tenant_id, slug, name, industry, phone, email, address, website, timezone,
        services, working_hours)
      select p_tenant_id, r.slug, r.name, r.industry, r.phone, r.email, r.address, r.website,
             coalesce(r.timezone, 'UTC'), coalesce(r.services, '[]'), coalesce(r.working_hours, '{}')
      from jsonb_to_recordset(p_rows) as r(slug text, name text, industry text, phone text, email text,
        address text, website text, timezone text, services jsonb, working_hours jsonb)
      on conflict (tenant_id, slug) do update set
        name = excluded.name, industry = excluded.industry, phone = excluded.phone, email = excluded.email,
        address = excluded.address, website = excluded.website, timezone = excluded.timezone,
        services = excluded.services, working_hours = excluded.working_hours, updated_at = now()
      where (t.name, t.industry, t.phone, t.email, t.address, t.website, t.timezone, t.services, t.working_hours)
            is distinct from
            (excluded.name, excluded.industry, excluded.phone, excluded.email, excluded.address, excluded.website,
             excluded.timezone, excluded.services, excluded.working_hours)
      returning (xmax = 0) as ins
    )
    select (count(*) filter (where ins))::integer, (count(*) filter (where not ins))::integer from up;
    -- A tenant's first business becomes the one its receptionist tools answer for.
    update public.tenants t set business_id = sb_private.tenant_business(p_tenant_id, null), updated_at = now()
    where t.id = p_tenant_id and t.business_id is null;

  when 'bookings', 'policies', 'faqs' then
    return query select * from sb_private.upsert_business_rows(p_tenant_id, p_table, p_rows);

  when 'tenants' then
    return query select * from sb_private.upsert_tenants(p_rows);

  when 'tenant_workspaces' then
    return query
    with up as (
      insert into public.tenant_workspaces as t (platform, workspace_id, tenant_id)
      select r.platform, r.workspace_id, p_tenant_id
      from jsonb_to_recordset(p_rows) as r(platform text, workspace_id text)
      on conflict (platform, workspace_id) do update set tenant_id = excluded.tenant_id
      where t.tenant_id is distinct from excluded.tenant_id
      returning (xmax = 0) as ins
    )
    select (count(*) filter (where ins))::integer, (count(*) filter (where not ins))::integer from up;

  else
    raise exception using errcode = 'SB001', message = format('cannot import into %L', p_table);
  end case;
end
$$;
