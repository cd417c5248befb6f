-- Business (receptionist) reads: services, hours, bookings, policies, FAQs.
-- p_business_id is optional everywhere: without it the tenant's own business is used.

-- The business a call is about, and only if it belongs to the tenant.
create or replace function sb_private.tenant_business(p_tenant_id uuid, p_business_id uuid)
returns uuid
language sql stable
as $$
  select b.id
  from public.businesses b
  left join public.tenants t on t.id = b.tenant_id
  where b.tenant_id = p_tenant_id
    and (p_business_id is null or b.id = p_business_id)
  order by (b.id = t.business_id) desc nulls last, b.name, b.id
  limit 1
$$;

-- 'Late-Arrival', 'late_arrival' and 'late arrival' are one topic.
create or replace function sb_private.topic_key(p text)
returns text
language sql immutable parallel safe
as $$
  select nullif(btrim(regexp_replace(lower(coalesce(p, '')), '[^a-z0-9]+', ' ', 'g')), '')
$$;

create or replace function public.get_business(p_tenant_id uuid, p_business_id uuid default null)
returns table (
  business_id uuid, slug text, name text, industry text, phone text, email text, address text,
  website text, timezone text, services jsonb, working_hours jsonb
)
language sql stable
as $$
  select b.id, b.slug, b.name, b.industry, b.phone, b.email, b.address, b.website, b.timezone,
         b.services, b.working_hours
  from public.businesses b
  where b.tenant_id = p_tenant_id and b.id = sb_private.tenant_business(p_tenant_id, p_business_id)
$$;

create or replace function public.get_business_services(p_tenant_id uuid, p_business_id uuid default null)
returns table (
  business_id uuid, name text, description text, duration_minutes integer, price double precision,
  category text
)
language sql stable
as $$
  select b.id, s.value ->> 'name', s.value ->> 'description',
         (s.value ->> 'duration_minutes')::integer, (s.value ->> 'price')::double precision,
         s.value ->> 'category'
  from public.businesses b
  cross join lateral jsonb_array_elements(
    case when jsonb_typeof(b.services) = 'array' then b.services else '[]'::jsonb end
  ) with ordinality as s(value, ord)
  where b.tenant_id = p_tenant_id and b.id = sb_private.tenant_business(p_tenant_id, p_business_id)
  order by s.ord
$$;

-- One row per opening interval; a closed day is one row with is_closed and null times.
create or replace function public.get_working_hours(p_tenant_id uuid, p_business_id uuid default null)
returns table (
  business_id uuid, timezone text, day text, day_index integer, opens text, closes text, is_closed boolean
)
language sql stable
as $$
  select b.id, b.timezone, d.day, d.idx::integer, i.value ->> 'open', i.value ->> 'close', i.value is null
  from public.businesses b
  cross join unnest(array['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'])
    with ordinality as d(day, idx)
  left join lateral jsonb_array_elements(
    case when jsonb_typeof(b.working_hours -> d.day) = 'array' then b.working_hours -> d.day else '[]'::jsonb end
  ) with ordinality as i(value, ord) on true
  where b.tenant_id = p_tenant_id and b.id = sb_private.tenant_business(p_tenant_id, p_business_id)
  order by d.idx, i.ord
$$;

-- Booking rows share one shape; booking_local is the time in the business's time zone.
create or replace function public.get_latest_booking(
  p_tenant_id uuid,
  p_customer_phone text,
  p_business_id uuid default null,
  p_limit integer default 1
)
returns table (
  booking_id uuid, reference text, business_id uuid, customer_name text, customer_phone text,
  customer_email text, service text, booking_datetime timestamptz, booking_local text, timezone text,
  duration_minutes integer, status text, price double precision, customer_notes text
)
language sql stable
as $$
  select k.id, k.reference, k.business_id, k.customer_name, k.customer_phone, k.customer_email, k.service,
         k.booking_datetime, to_char(k.booking_datetime at time zone b.timezone, 'YYYY-MM-DD HH24:MI'),
         b.timezone, k.duration_minutes, k.status, k.price::double precision, k.customer_notes
  from public.bookings k
  join public.businesses b on b.id = k.business_id
  where k.tenant_id = p_tenant_id
    and k.phone_key = sb_private.phone_key(p_customer_phone)
    and (p_business_id is null or k.business_id = p_business_id)
  order by k.booking_datetime desc, k.id
  limit least(greatest(coalesce(p_limit, 1), 1), 20)
$$;

create or replace function public.get_booking_by_id(p_tenant_id uuid, p_booking_id text)
returns table (
  booking_id uuid, reference text, business_id uuid, customer_name text, customer_phone text,
  customer_email text, service text, booking_datetime timestamptz, booking_local text, timezone text,
  duration_minutes integer, status text, price double precision, customer_notes text
)
language sql stable
as $$
  select k.id, k.reference, k.business_id, k.customer_name, k.customer_phone, k.customer_email, k.service,
         k.booking_datetime, to_char(k.booking_datetime at time zone b.timezone, 'YYYY-MM-DD HH24:MI'),
         b.timezone, k.duration_minutes, k.status, k.price::double precision, k.customer_notes
  from public.bookings k
  join public.businesses b on b.id = k.business_id
  where k.tenant_id = p_tenant_id
    and (upper(k.reference) = upper(btrim(p_booking_id)) or k.id::text = lower(btrim(p_booking_id)))
$$;

-- Topic match first (exact, then partial), then full-text over title and content.
create or replace function public.get_policies(
  p_tenant_id uuid,
  p_topic text default null,
  p_business_id uuid default null
)
returns table (
  policy_id uuid, business_id uuid, topic text, title text, content text, updated_at timestamptz
)
language sql stable
as $$
  with m as (
    select p.*,
           case
             when sb_private.topic_key(p_topic) is null then 0
             when sb_private.topic_key(p.topic) = sb_private.topic_key(p_topic) then 1
             when strpos(sb_private.topic_key(p.topic), sb_private.topic_key(p_topic)) > 0
               or strpos(sb_private.topic_key(p_topic), sb_private.topic_key(p.topic)) > 0 then 2
             when to_tsvector('english', p.title || ' ' || p.content)
                  @@ websearch_to_tsquery('english', coalesce(p_topic, '')) then 3
           end as tier
    from public.policies p
    where p.tenant_id = p_tenant_id
      and p.business_id = sb_private.tenant_business(p_tenant_id, p_business_id)
  )
  select m.id, m.business_id, m.topic, m.title, m.content, m.updated_at
  from m
  where m.tier is not null
  order by m.tier, m.topic
$$;

create or replace function public.get_faqs(
  p_tenant_id uuid,
  p_topic text default null,
  p_business_id uuid default null,
  p_limit integer default 10
)
returns table (
  faq_id uuid, business_id uuid, topic text, question text, answer text, tags text[], updated_at timestamptz
)
language sql stable
as $$
  with m as (
    select f.*,
           case
             when sb_private.topic_key(p_topic) is null then 0
             when sb_private.topic_key(f.topic) = sb_private.topic_key(p_topic) then 1
             when sb_private.topic_key(p_topic) = any (
                    select sb_private.topic_key(t) from unnest(f.tags) t) then 2
             when to_tsvector('english', f.question || ' ' || f.answer)
                  @@ websearch_to_tsquery('english', coalesce(p_topic, '')) then 3
           end as tier
    from public.faqs f
    where f.tenant_id = p_tenant_id
      and f.business_id = sb_private.tenant_business(p_tenant_id, p_business_id)
  )
  select m.id, m.business_id, m.topic, m.question, m.answer, m.tags, m.updated_at
  from m
  where m.tier is not null
  order by m.tier, m.topic, m.question
  limit least(greatest(coalesce(p_limit, 10), 1), 50)
$$;
