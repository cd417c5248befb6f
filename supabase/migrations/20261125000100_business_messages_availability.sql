-- Seed 004's receptionist additions: messages taken for the business when a lookup cannot
-- answer ("Would you like me to take a message?"), and free slots from working hours minus
-- bookings (read-only).

create table if not exists public.business_messages (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  business_id uuid not null references public.businesses (id) on delete cascade,
  name text not null check (length(name) between 1 and 200),
  contact text not null check (length(contact) between 1 and 200),
  message text not null check (length(message) between 1 and 4000),
  platform text not null,
  user_id text not null,
  created_at timestamptz not null default now()
);
create index if not exists business_messages_business_time on public.business_messages (tenant_id, business_id, created_at desc);

-- The one write a tool makes: append-only, into the tenant's own business.
create or replace function public.take_message(
  p_tenant_id uuid,
  p_name text,
  p_contact text,
  p_message text,
  p_platform text,
  p_user_id text,
  p_business_id uuid default null
)
returns table (message_id uuid, business_id uuid, created_at timestamptz)
language plpgsql
as $$
declare
  biz uuid := sb_private.tenant_business(p_tenant_id, p_business_id);
begin
  if biz is null then
    raise exception 'this tenant has no business to take a message for' using errcode = '22023';
  end if;
  return query
  insert into public.business_messages as m (tenant_id, business_id, name, contact, message, platform, user_id)
  values (p_tenant_id, biz, btrim(p_name), btrim(p_contact), btrim(p_message), p_platform, p_user_id)
  returning m.id, m.business_id, m.created_at;
end
$$;

-- Free start times on one local date for an appointment of p_duration_minutes: every
-- p_step_minutes within each opening interval of that weekday, minus those overlapping a
-- pending or confirmed booking, and none before p_after (the caller's "now").
create or replace function public.get_availability(
  p_tenant_id uuid,
  p_date date,
  p_duration_minutes integer default 30,
  p_business_id uuid default null,
  p_after timestamptz default null,
  p_step_minutes integer default 30,
  p_limit integer default 40
)
returns table (business_id uuid, timezone text, slot_start timestamptz, slot_local text, duration_minutes integer)
language sql stable
as $$
  with b as (
    select x.id, x.timezone, x.working_hours
    from public.businesses x
    where x.tenant_id = p_tenant_id and x.id = sb_private.tenant_business(p_tenant_id, p_business_id)
  ),
  settings as (
    select greatest(least(coalesce(p_duration_minutes, 30), 600), 5) as minutes,
           greatest(least(coalesce(p_step_minutes, 30), 240), 5) as step
  ),
  intervals as (
    select b.id, b.timezone, (i.value ->> 'open')::time as opens, (i.value ->> 'close')::time as closes
    from b
    cross join lateral jsonb_array_elements(
      case when jsonb_typeof(b.working_hours -> lower(btrim(to_char(p_date, 'FMday')))) = 'array'
           then b.working_hours -> lower(btrim(to_char(p_date, 'FMday'))) else '[]'::jsonb end
    ) as i(value)
  ),
  candidates as (
    select iv.id, iv.timezone, s.minutes, local_start, (local_start at time zone iv.timezone) as starts
    from intervals iv
    cross join settings s
    cross join lateral generate_series(
      p_date + iv.opens,
      p_date + iv.closes - make_interval(mins => s.minutes),
      make_interval(mins => s.step)
    ) as local_start
  )
  select c.id, c.timezone, c.starts, to_char(c.local_start, 'YYYY-MM-DD HH24:MI'), c.minutes
  from candidates c
  where (p_after is null or c.starts >= p_after)
    and not exists (
      select 1 from public.bookings k
      where k.tenant_id = p_tenant_id and k.business_id = c.id
        and k.status in ('pending', 'confirmed')
        and k.booking_datetime < c.starts + make_interval(mins => c.minutes)
        and k.booking_datetime + make_interval(mins => k.duration_minutes) > c.starts
    )
  order by c.starts
  limit least(greatest(coalesce(p_limit, 40), 1), 200)
$$;

-- What the data port checks at startup (see 20261101000600).
create or replace function public.schema_info()
returns table (version text, vectors_available boolean, embedding_dimensions integer)
language sql stable
as $$
  select '20261125000100'::text,
         a.attname is not null,
         case when a.attname is not null and a.atttypmod > 0 then a.atttypmod end
  from (select 1) one
  left join pg_attribute a
    on a.attrelid = 'public.campaigns'::regclass and a.attname = 'embedding' and not a.attisdropped
$$;

-- Supabase only: the same lockdown as the other functions and tables (see 20261101000600).
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
    where n.nspname = 'public' and p.proname in ('take_message', 'get_availability', 'schema_info')
  loop
    execute format('revoke execute on function %s from public, anon, authenticated', f);
    if exists (select 1 from pg_roles where rolname = 'service_role') then
      execute format('grant execute on function %s to service_role', f);
    end if;
  end loop;
  alter table public.business_messages enable row level security;
end $$;
