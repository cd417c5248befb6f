-- Competitor and product (quote) reads. Same conventions as the campaign functions.

create or replace function public.list_competitor_ids(p_tenant_id uuid, p_campaign_id uuid default null)
returns table (key text, display_name text, campaign_id uuid, description_chars integer)
language sql stable
as $$
  select c.key, c.display_name, c.campaign_id, char_length(c.full_description)::integer
  from public.competitors c
  where c.tenant_id = p_tenant_id
    -- A campaign sees its own competitors plus the tenant-wide ones.
    and (p_campaign_id is null or c.campaign_id = p_campaign_id or c.campaign_id is null)
  order by c.key
$$;

create or replace function public.get_competitor(p_tenant_id uuid, p_key text)
returns table (key text, display_name text, full_description text, campaign_id uuid, updated_at timestamptz)
language sql stable
as $$
  select c.key, c.display_name, c.full_description, c.campaign_id, c.updated_at
  from public.competitors c
  where c.tenant_id = p_tenant_id and c.key = lower(btrim(p_key))
$$;

-- Model-written specs say "stainless steel", "aluminum", "SS316", "RHS": map them onto
-- the catalogue's vocabulary so a near miss still finds the product.
create or replace function sb_private.normalize_family(p text)
returns text
language sql immutable parallel safe
as $$
  select case
    when p is null or btrim(p) = '' then null
    when lower(p) ~ '(stainless|^ss$|inox)' then 'stainless'
    when lower(p) ~ '(alumin|^al$|^alu$)' then 'aluminium'
    when lower(p) ~ '(mild|carbon|^ms$|^steel$|black steel)' then 'mild_steel'
    else lower(regexp_replace(btrim(p), '\s+', '_', 'g'))
  end
$$;

create or replace function sb_private.normalize_grade(p text)
returns text
language sql immutable parallel safe
as $$
  select nullif(regexp_replace(upper(regexp_replace(coalesce(p, ''), '[^A-Za-z0-9]', '', 'g')),
                               '^(SS|AISI|AL|GRADE|GR)', ''), '')
$$;

create or replace function sb_private.normalize_form(p text)
returns text
language sql immutable parallel safe
as $$
  select case
    when p is null or btrim(p) = '' then null
    when lower(p) ~ 'sheet' then 'sheet'
    when lower(p) ~ 'plate' then 'plate'
    when lower(p) ~ '(tube|tubing|pipe|shs|rhs|chs|hollow)' then 'tube'
    when lower(p) ~ 'angle' then 'angle'
    when lower(p) ~ '(bar|rod|flat)' then 'bar'
    else lower(btrim(p))
  end
$$;

create or replace function public.search_products(
  p_tenant_id uuid,
  p_query text default null,
  p_family text default null,
  p_grade text default null,
  p_form text default null,
  p_thickness_mm double precision default null,
  p_limit integer default 20
)
returns table (
  product_id uuid, code text, family text, grade text, form text, finish text,
  thickness_mm double precision, width_mm double precision, length_mm double precision,
  size_label text, description text, mass_kg double precision,
  supplier_count integer, min_price double precision, max_price double precision,
  uom text, min_lead_time_days integer
)
language sql stable
as $$
  select p.id, p.code, p.family, p.grade, p.form, p.finish,
         p.thickness_mm::double precision, p.width_mm::double precision, p.length_mm::double precision,
         p.size_label, p.description, p.mass_kg::double precision,
         count(sp.id)::integer, min(sp.price_per_uom)::double precision, max(sp.price_per_uom)::double precision,
         min(sp.uom), min(sp.lead_time_days)::integer
  from public.products p
  left join public.supplier_prices sp on sp.product_id = p.id and sp.tenant_id = p_tenant_id
  where p.tenant_id = p_tenant_id
    and (sb_private.normalize_family(p_family) is null or p.family = sb_private.normalize_family(p_family))
    and (sb_private.normalize_grade(p_grade) is null or upper(p.grade) = sb_private.normalize_grade(p_grade))
    and (sb_private.normalize_form(p_form) is null or p.form = sb_private.normalize_form(p_form))
    and (p_thickness_mm is null or abs(p.thickness_mm - p_thickness_mm::numeric) < 0.051)
    -- Every word of the free-text query must appear somewhere in the product's text.
    and not exists (
      select 1
      from regexp_split_to_table(lower(coalesce(p_query, '')), '[\s,;]+') w
      where w <> ''
        and position(w in lower(concat_ws(' ', p.code, replace(p.family, '_', ' '), p.grade, p.form, p.finish,
                                          trim_scale(p.thickness_mm) || 'mm', p.size_label, p.description))) = 0
    )
  group by p.id
  order by p.family, p.grade, p.form, p.thickness_mm, p.code
  limit least(greatest(coalesce(p_limit, 20), 1), 100)
$$;

create or replace function public.get_pricing_for_material(
  p_tenant_id uuid,
  p_family text,
  p_grade text default null,
  p_thickness_mm double precision default null,
  p_form text default null,
  p_width_mm double precision default null,
  p_length_mm double precision default null,
  p_limit integer default 20
)
returns table (
  product_id uuid, code text, family text, grade text, form text, finish text,
  thickness_mm double precision, width_mm double precision, length_mm double precision, size_label text,
  supplier text, sku text, uom text, price_per_uom double precision, lead_time_days integer,
  delivery_cost double precision, min_order_qty double precision, notes text
)
language sql stable
as $$
  select p.id, p.code, p.family, p.grade, p.form, p.finish,
         p.thickness_mm::double precision, p.width_mm::double precision, p.length_mm::double precision, p.size_label,
         sp.supplier, sp.sku, sp.uom, sp.price_per_uom::double precision, sp.lead_time_days,
         sp.delivery_cost::double precision, sp.min_order_qty::double precision, sp.notes
  from public.products p
  join public.supplier_prices sp on sp.product_id = p.id and sp.tenant_id = p_tenant_id
  where p.tenant_id = p_tenant_id
    and p.family = sb_private.normalize_family(p_family)
    and (sb_private.normalize_grade(p_grade) is null or upper(p.grade) = sb_private.normalize_grade(p_grade))
    and (sb_private.normalize_form(p_form) is null or p.form = sb_private.normalize_form(p_form))
    and (p_thickness_mm is null or abs(p.thickness_mm - p_thickness_mm::numeric) < 0.051)
    -- A 1200 x 2400 request matches a 2400 x 1200 sheet.
    and (p_width_mm is null or p_length_mm is null
         or (abs(p.width_mm - p_width_mm::numeric) <= 1 and abs(p.length_mm - p_length_mm::numeric) <= 1)
         or (abs(p.width_mm - p_length_mm::numeric) <= 1 and abs(p.length_mm - p_width_mm::numeric) <= 1))
  order by p.thickness_mm, p.size_label, sp.price_per_uom, sp.supplier
  limit least(greatest(coalesce(p_limit, 20), 1), 100)
$$;

-- Ranks every supplier of each matching product by the landed cost of p_quantity units.
-- Without a product id or any spec it returns nothing rather than the whole catalogue.
create or replace function public.compare_suppliers(
  p_tenant_id uuid,
  p_product_id uuid default null,
  p_family text default null,
  p_grade text default null,
  p_form text default null,
  p_thickness_mm double precision default null,
  p_quantity double precision default 1,
  p_limit integer default 30
)
returns table (
  product_id uuid, code text, family text, grade text, form text,
  thickness_mm double precision, size_label text,
  supplier text, sku text, uom text, price_per_uom double precision, lead_time_days integer,
  delivery_cost double precision, min_order_qty double precision, quantity double precision,
  total_cost double precision, price_rank integer, is_cheapest boolean, is_fastest boolean
)
language sql stable
as $$
  with offers as (
    select p.id as product_id, p.code, p.family, p.grade, p.form, p.thickness_mm, p.size_label,
           sp.supplier, sp.sku, sp.uom, sp.price_per_uom, sp.lead_time_days, sp.delivery_cost, sp.min_order_qty,
           greatest(coalesce(p_quantity, 1)::numeric, sp.min_order_qty) as quantity
    from public.products p
    join public.supplier_prices sp on sp.product_id = p.id and sp.tenant_id = p_tenant_id
    where p.tenant_id = p_tenant_id
      and num_nonnulls(p_product_id, sb_private.normalize_family(p_family), sb_private.normalize_grade(p_grade),
                       sb_private.normalize_form(p_form), p_thickness_mm) > 0
      and (p_product_id is null or p.id = p_product_id)
      and (sb_private.normalize_family(p_family) is null or p.family = sb_private.normalize_family(p_family))
      and (sb_private.normalize_grade(p_grade) is null or upper(p.grade) = sb_private.normalize_grade(p_grade))
      and (sb_private.normalize_form(p_form) is null or p.form = sb_private.normalize_form(p_form))
      and (p_thickness_mm is null or abs(p.thickness_mm - p_thickness_mm::numeric) < 0.051)
  ),
  costed as (
    select o.*, round(o.price_per_uom * o.quantity + o.delivery_cost, 2) as total_cost
    from offers o
  )
  select c.product_id, c.code, c.family, c.grade, c.form, c.thickness_mm::double precision, c.size_label,
         c.supplier, c.sku, c.uom, c.price_per_uom::double precision, c.lead_time_days,
         c.delivery_cost::double precision, c.min_order_qty::double precision, c.quantity::double precision,
         c.total_cost::double precision,
         rank() over (partition by c.product_id order by c.total_cost)::integer,
         c.total_cost = min(c.total_cost) over (partition by c.product_id),
         c.lead_time_days = min(c.lead_time_days) over (partition by c.product_id)
  from costed c
  order by c.thickness_mm, c.size_label, c.code, c.total_cost, c.supplier
  limit least(greatest(coalesce(p_limit, 30), 1), 200)
$$;
