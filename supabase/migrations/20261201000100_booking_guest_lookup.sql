-- A guest's booking lookup (issue 27): a booking is found only with two facts it holds, its
-- reference and the phone number or email on it. The match happens here, so the row of a
-- booking whose second fact does not match never leaves the database. What comes back is
-- what a guest may see: no email, no notes, and only the last three digits of the phone.

-- A phone number's significant digits: digits only, leading zeros dropped (a trunk '0' or an
-- international '00'): '0412 345 678' → '412345678', '+61 412 345 678' → '61412345678'.
create or replace function sb_private.phone_significant(p_phone text)
returns text
language sql immutable parallel safe
as $$
  select nullif(ltrim(regexp_replace(coalesce(p_phone, ''), '\D', '', 'g'), '0'), '')
$$;

-- The same number written two ways: equal significant digits, or one is the other with a
-- country code (one to three digits) in front. Seven digits at least on both sides, so a
-- fragment of a number never matches.
create or replace function sb_private.same_phone(p_a text, p_b text)
returns boolean
language sql immutable parallel safe
as $$
  select coalesce(
    length(x.a) >= 7 and length(x.b) >= 7 and (
      x.a = x.b
      or (length(x.a) - length(x.b) between 1 and 3 and right(x.a, length(x.b)) = x.b)
      or (length(x.b) - length(x.a) between 1 and 3 and right(x.b, length(x.a)) = x.a)
    ),
    false)
  from (select sb_private.phone_significant(p_a) as a, sb_private.phone_significant(p_b) as b) x
$$;

-- The booking with this reference (or id) whose phone or email is the one given; nothing
-- otherwise, the same nothing as for a reference that does not exist. Email compares without
-- case or surrounding spaces. `customer_phone` holds only its last three digits;
-- `customer_email` and `customer_notes` are always null.
create or replace function public.get_booking_for_guest(
  p_tenant_id uuid,
  p_booking_id text,
  p_customer_phone text default null,
  p_customer_email text default null
)
returns table (
  booking_id uuid, reference text, business_id uuid, customer_name text, customer_phone text,
  customer_email text, service text, booking_datetime timestamptz, booking_local text, timezone text,
  duration_minutes integer, status text, price double precision, customer_notes text
)
language sql stable
as $$
  select k.id, k.reference, k.business_id, k.customer_name,
         nullif(right(regexp_replace(coalesce(k.customer_phone, ''), '\D', '', 'g'), 3), ''),
         null::text, k.service,
         k.booking_datetime, to_char(k.booking_datetime at time zone b.timezone, 'YYYY-MM-DD HH24:MI'),
         b.timezone, k.duration_minutes, k.status, k.price::double precision, null::text
  from public.bookings k
  join public.businesses b on b.id = k.business_id
  where k.tenant_id = p_tenant_id
    and (upper(k.reference) = upper(btrim(p_booking_id)) or k.id::text = lower(btrim(p_booking_id)))
    and (
      (p_customer_phone is not null and sb_private.same_phone(k.customer_phone, p_customer_phone))
      or (nullif(btrim(p_customer_email), '') is not null
          and lower(btrim(k.customer_email)) = lower(btrim(p_customer_email)))
    )
$$;

-- Supabase only: the same lockdown as the other functions (sb_private.lock_down, 20261126000000).
-- The sb_private helpers need none: nobody but the service role has usage on that schema.
select sb_private.lock_down(array['get_booking_for_guest']);
