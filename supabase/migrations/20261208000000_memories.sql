-- Long-term memory (issue 45): notes the bot keeps between threads, each with a scope that decides
-- where it may be recalled.
--   user:    what a person said about themselves; recalled only in that person's direct messages
--            with the bot (same platform, same user id), or everywhere in the tenant when they said so
--            (`everywhere`).
--   channel: what was said about a channel's work; recalled only in that channel (and its threads).
--   team:    what holds for the whole tenant; written and recalled only by members.
-- Every function takes the tenant's id first and filters on it: no call reaches another tenant's
-- rows, and the rows go with their tenant (on delete cascade). Row-level security is on and the
-- table and functions are closed to Supabase's anon and authenticated roles (lock_down below).
create table if not exists public.memories (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  scope text not null check (scope in ('user', 'channel', 'team')),
  -- Where it was said: platform ids of a user and a channel mean something on their platform only.
  platform text not null,
  -- Who said it (for a user note, whose it is).
  author_id text not null,
  -- A channel note's channel; null for the other scopes (a user or team note keeps no channel).
  channel_id text,
  -- A user note that may be recalled in every conversation of the tenant ("for all channels").
  everywhere boolean not null default false,
  text text not null check (char_length(text) between 1 and 500),
  search_tsv tsvector generated always as (to_tsvector('english', text)) stored,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  check ((scope = 'channel') = (channel_id is not null))
);
-- Notes are written one at a time and read on every turn: no pending list (fastupdate), so a
-- word search is an index scan from the first note on.
create index if not exists memories_search on public.memories using gin (search_tsv) with (fastupdate = off);
create index if not exists memories_owner on public.memories (tenant_id, platform, author_id);
create index if not exists memories_scope on public.memories (tenant_id, scope, created_at desc);
create index if not exists memories_expiry on public.memories (tenant_id, expires_at);

-- Whether a note may appear in a turn (one place for the rule; inlined by the planner).
create or replace function sb_private.memory_visible(
  m_scope text, m_platform text, m_author text, m_channel text, m_everywhere boolean,
  p_platform text, p_user_id text, p_channel_id text, p_direct boolean, p_member boolean
)
returns boolean
language sql immutable
as $$
  select case m_scope
    when 'team' then coalesce(p_member, false)
    when 'channel' then m_platform = p_platform and m_channel = p_channel_id
    when 'user' then m_platform = p_platform and m_author = p_user_id and (coalesce(p_direct, false) or m_everywhere)
    else false
  end
$$;

-- The message's words as an OR query (any shared word recalls a note; stop words drop out).
create or replace function sb_private.memory_query(p_query text)
returns tsquery
language sql immutable
as $$
  select case when count(*) = 0 then null
              else to_tsquery('simple', string_agg(quote_literal(l), ' | ')) end
  from (
    select l from unnest(tsvector_to_array(to_tsvector('english', left(coalesce(p_query, ''), 4000)))) as u(l)
    limit 64
  ) w
$$;

-- Saves a note, within the limits. `status`: saved | exists (the same note again: kept longer) |
-- user_full | tenant_full | not_allowed (a guest's team or channel note). The counts say how many
-- notes the author and the tenant hold after the call.
create or replace function public.memory_add(
  p_tenant_id uuid, p_scope text, p_platform text, p_user_id text, p_text text,
  p_member boolean, p_max_per_user integer, p_max_per_tenant integer, p_ttl_days integer,
  p_channel_id text default null, p_everywhere boolean default null, p_now timestamptz default null
)
returns table (id uuid, status text, scope text, text text, everywhere boolean, created_at timestamptz,
               expires_at timestamptz, user_count integer, tenant_count integer)
language plpgsql
as $$
declare
  at timestamptz := coalesce(p_now, now());
  chan text := case when p_scope = 'channel' then p_channel_id end;
  hit uuid;
  mine integer;
  total integer;
begin
  if p_scope not in ('user', 'channel', 'team') then
    raise exception using errcode = 'SB001', message = format('unknown memory scope %L', p_scope);
  end if;
  if p_scope = 'channel' and coalesce(p_channel_id, '') = '' then
    raise exception using errcode = 'SB001', message = 'a channel note needs its channel';
  end if;
  if char_length(coalesce(p_text, '')) not between 1 and 500 then
    raise exception using errcode = 'SB001', message = 'a note is 1 to 500 characters';
  end if;
  -- One writer per tenant at a time: two replicas cannot both take the last free place.
  perform pg_advisory_xact_lock(hashtextextended('memories:' || p_tenant_id::text, 0));
  delete from public.memories m where m.tenant_id = p_tenant_id and m.expires_at <= at;
  select count(*) filter (where m.platform = p_platform and m.author_id = p_user_id), count(*)
    into mine, total
  from public.memories m where m.tenant_id = p_tenant_id;

  if p_scope <> 'user' and not coalesce(p_member, false) then
    return query select null::uuid, 'not_allowed'::text, p_scope, p_text, false, null::timestamptz,
                        null::timestamptz, mine, total;
    return;
  end if;
  update public.memories m
  set expires_at = at + make_interval(days => p_ttl_days),
      everywhere = m.everywhere or coalesce(p_everywhere, false)
  where m.tenant_id = p_tenant_id and m.scope = p_scope and m.platform = p_platform
    and (p_scope <> 'user' or m.author_id = p_user_id) and m.channel_id is not distinct from chan
    and lower(m.text) = lower(p_text)
  returning m.id into hit;
  if hit is not null then
    return query select m.id, 'exists'::text, m.scope, m.text, m.everywhere, m.created_at, m.expires_at, mine, total
                 from public.memories m where m.id = hit;
    return;
  end if;
  if mine >= p_max_per_user then
    return query select null::uuid, 'user_full'::text, p_scope, p_text, false, null::timestamptz,
                        null::timestamptz, mine, total;
    return;
  end if;
  if total >= p_max_per_tenant then
    return query select null::uuid, 'tenant_full'::text, p_scope, p_text, false, null::timestamptz,
                        null::timestamptz, mine, total;
    return;
  end if;
  return query
  insert into public.memories as m (tenant_id, scope, platform, author_id, channel_id, everywhere, text, created_at,
                                    expires_at)
  values (p_tenant_id, p_scope, p_platform, p_user_id, chan, p_scope = 'user' and coalesce(p_everywhere, false),
          p_text, at, at + make_interval(days => p_ttl_days))
  returning m.id, 'saved'::text, m.scope, m.text, m.everywhere, m.created_at, m.expires_at, mine + 1, total + 1;
end
$$;

-- The notes a turn may see that share words with its message, best first, newest on a tie.
create or replace function sb_private.memory_recall_words(
  p_tenant_id uuid, p_platform text, p_user_id text, p_channel_id text, p_direct boolean, p_member boolean,
  p_query text, p_limit integer, p_now timestamptz
)
returns table (id uuid, scope text, text text, everywhere boolean, created_at timestamptz, score double precision)
language plpgsql stable
as $$
declare
  -- The words first: a message with none worth searching costs no scan at all.
  q tsquery := sb_private.memory_query(p_query);
begin
  if q is null then
    return;
  end if;
  -- Planned for these words each time (EXECUTE): a generic plan cannot tell a rare word (the
  -- index) from a common one, and a cached one would scan every note of the tenant.
  return query execute $q$
    select m.id, m.scope, m.text, m.everywhere, m.created_at, ts_rank(m.search_tsv, $1)::double precision
    from public.memories m
    where m.search_tsv @@ $1 and m.tenant_id = $2 and m.expires_at > $3
      and sb_private.memory_visible(m.scope, m.platform, m.author_id, m.channel_id, m.everywhere,
                                    $4, $5, $6, $7, $8)
    order by 6 desc, m.created_at desc, m.id
    limit $9
  $q$
  using q, p_tenant_id, coalesce(p_now, now()), p_platform, p_user_id, p_channel_id, p_direct, p_member,
        least(greatest(coalesce(p_limit, 12), 1), 50);
end
$$;

-- Recall (the port's function). With pgvector, sb_private.setup_memory_vectors below replaces it
-- with one that also ranks by meaning when the caller sends the message's embedding.
create or replace function public.memory_recall(
  p_tenant_id uuid, p_platform text, p_user_id text, p_channel_id text, p_direct boolean, p_member boolean,
  p_query text, p_query_embedding real[] default null, p_limit integer default 12, p_now timestamptz default null
)
returns table (id uuid, scope text, text text, everywhere boolean, created_at timestamptz, score double precision)
language sql stable
as $$
  select * from sb_private.memory_recall_words(p_tenant_id, p_platform, p_user_id, p_channel_id, p_direct,
                                               p_member, p_query, p_limit, p_now)
$$;

-- Stores a note's embedding (a no-op without pgvector: recall then ranks by words).
create or replace function public.memory_set_embedding(p_tenant_id uuid, p_id uuid, p_embedding real[])
returns table (updated integer)
language sql
as $$ select 0 $$;

-- What the bot remembers for a person, here: their own notes (`mine`), this channel's, and the
-- team's (members only), newest first. The caller decides where a person's own notes are shown.
create or replace function public.memory_list(
  p_tenant_id uuid, p_platform text, p_user_id text, p_channel_id text, p_member boolean,
  p_limit integer default 100, p_now timestamptz default null
)
returns table (id uuid, scope text, text text, everywhere boolean, mine boolean, created_at timestamptz,
               expires_at timestamptz)
language sql stable
as $$
  select m.id, m.scope, m.text, m.everywhere, m.platform = p_platform and m.author_id = p_user_id,
         m.created_at, m.expires_at
  from public.memories m
  where m.tenant_id = p_tenant_id and m.expires_at > coalesce(p_now, now())
    and sb_private.memory_visible(m.scope, m.platform, m.author_id, m.channel_id, m.everywhere,
                                  p_platform, p_user_id, p_channel_id, true, p_member)
  order by case m.scope when 'user' then 0 when 'channel' then 1 else 2 end, m.created_at desc, m.id
  limit least(greatest(coalesce(p_limit, 100), 1), 500)
$$;

-- Forgets one note if the caller may: their own user note; a channel note from that channel, or a
-- team note, by a member. `status`: forgotten | not_allowed (a team or channel note the caller
-- may not forget; its text is not returned) | not_found (none, or another person's note).
create or replace function public.memory_forget(
  p_tenant_id uuid, p_id uuid, p_platform text, p_user_id text, p_member boolean, p_channel_id text default null
)
returns table (id uuid, scope text, text text, status text)
language plpgsql
as $$
declare
  rec public.memories%rowtype;
  allowed boolean;
begin
  select * into rec from public.memories m where m.id = p_id and m.tenant_id = p_tenant_id;
  if not found then
    return query select p_id, null::text, null::text, 'not_found'::text;
    return;
  end if;
  allowed := case rec.scope
    when 'user' then rec.platform = p_platform and rec.author_id = p_user_id
    when 'channel' then coalesce(p_member, false) and rec.platform = p_platform and rec.channel_id = p_channel_id
    else coalesce(p_member, false)
  end;
  if not allowed then
    -- Another person's note is not the caller's to know about; a team or channel note is named
    -- by its scope only (a guest holding its button learns it needs a member, not what it says).
    if rec.scope = 'user' then
      return query select p_id, null::text, null::text, 'not_found'::text;
    else
      return query select rec.id, rec.scope, null::text, 'not_allowed'::text;
    end if;
    return;
  end if;
  delete from public.memories m where m.id = rec.id and m.tenant_id = p_tenant_id;
  return query select rec.id, rec.scope, rec.text, 'forgotten'::text;
end
$$;

-- The console: how many live notes each tenant holds, per scope.
create or replace function public.memory_counts(p_now timestamptz default null)
returns table (slug text, scope text, memories integer)
language sql stable
as $$
  select t.slug, m.scope, count(*)::integer
  from public.memories m join public.tenants t on t.id = m.tenant_id
  where m.expires_at > coalesce(p_now, now())
  group by t.slug, m.scope order by t.slug, m.scope
$$;

-- A tenant's live notes (the console's team and channel notes; the CLI's export of all of them).
create or replace function public.memory_admin_list(
  p_tenant text, p_scopes text[] default null, p_limit integer default 1000, p_now timestamptz default null
)
returns table (id uuid, scope text, platform text, author_id text, channel_id text, everywhere boolean, text text,
               created_at timestamptz, expires_at timestamptz)
language sql stable
as $$
  select m.id, m.scope, m.platform, m.author_id, m.channel_id, m.everywhere, m.text, m.created_at, m.expires_at
  from public.memories m join public.tenants t on t.id = m.tenant_id
  where t.slug = p_tenant and m.expires_at > coalesce(p_now, now())
    and (p_scopes is null or m.scope = any (p_scopes))
  order by m.scope, m.created_at desc, m.id
  limit least(greatest(coalesce(p_limit, 1000), 1), 100000)
$$;

-- Deletes a tenant's notes (all, or one scope's).
create or replace function public.memory_purge(p_tenant text, p_scope text default null)
returns table (deleted integer)
language plpgsql
as $$
declare
  tid uuid;
begin
  select t.id into tid from public.tenants t where t.slug = p_tenant;
  if tid is null then
    raise exception using errcode = 'SB001', message = format('unknown tenant %L', p_tenant);
  end if;
  return query
  with d as (
    delete from public.memories m where m.tenant_id = tid and (p_scope is null or m.scope = p_scope) returning 1
  )
  select count(*)::integer from d;
end
$$;

-- With pgvector (as 20261101000100): an embedding column, and recall that ranks by meaning too.
create or replace function sb_private.setup_memory_vectors()
returns boolean
language plpgsql
as $fn$
declare
  vec_type text;
  ext_schema text;
  ext_version text;
  dims integer;
  iterative boolean;
begin
  select format_type(a.atttypid, a.atttypmod) into vec_type
  from pg_attribute a
  where a.attrelid = 'public.campaigns'::regclass and a.attname = 'embedding' and not a.attisdropped;
  if vec_type is null then
    return false;
  end if;
  select n.nspname, e.extversion into ext_schema, ext_version
  from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'vector';
  iterative := string_to_array(ext_version, '.')::int[] >= array[0, 8];
  dims := substring(vec_type from '\((\d+)\)')::integer;
  vec_type := format('%I.%s', ext_schema, regexp_replace(vec_type, '^.*\.', ''));
  if not exists (
    select 1 from pg_attribute
    where attrelid = 'public.memories'::regclass and attname = 'embedding' and not attisdropped
  ) then
    execute format('alter table public.memories add column embedding %s', vec_type);
  end if;
  execute format(
    'create index if not exists memories_embedding_hnsw on public.memories using hnsw (embedding %I.vector_cosine_ops)',
    ext_schema);

  execute format($body$
    create or replace function public.memory_set_embedding(p_tenant_id uuid, p_id uuid, p_embedding real[])
    returns table (updated integer)
    language sql
    as $f$
      with u as (
        update public.memories m set embedding = p_embedding::%1$I.vector(%2$s)
        where m.id = p_id and m.tenant_id = p_tenant_id returning 1
      )
      select count(*)::integer from u
    $f$
  $body$, ext_schema, dims);

  -- Words or meaning: a note that shares a word with the message, or is within 0.6 cosine distance
  -- of it, ranks by meaning first (then words, then recency).
  execute format($body$
    create or replace function public.memory_recall(
      p_tenant_id uuid, p_platform text, p_user_id text, p_channel_id text, p_direct boolean, p_member boolean,
      p_query text, p_query_embedding real[] default null, p_limit integer default 12, p_now timestamptz default null
    )
    returns table (id uuid, scope text, text text, everywhere boolean, created_at timestamptz, score double precision)
    language plpgsql stable
    as $f$
    declare
      lim integer := least(greatest(coalesce(p_limit, 12), 1), 50);
      at timestamptz := coalesce(p_now, now());
      q tsquery := sb_private.memory_query(p_query);
      v %1$I.vector(%2$s);
    begin
      if p_query_embedding is null then
        return query select * from sb_private.memory_recall_words(p_tenant_id, p_platform, p_user_id,
          p_channel_id, p_direct, p_member, p_query, lim, at);
        return;
      end if;
      v := p_query_embedding::%1$I.vector(%2$s);
      %3$s
      return query
      with near as (
        select m.id, m.embedding operator(%1$I.<=>) v as distance
        from public.memories m
        where m.tenant_id = p_tenant_id and m.embedding is not null and m.expires_at > at
          and sb_private.memory_visible(m.scope, m.platform, m.author_id, m.channel_id, m.everywhere,
                                        p_platform, p_user_id, p_channel_id, p_direct, p_member)
        order by m.embedding operator(%1$I.<=>) v
        limit lim
      ), words as (
        select m.id, ts_rank(m.search_tsv, q) as rank
        from public.memories m
        where m.tenant_id = p_tenant_id and q is not null and m.search_tsv @@ q and m.expires_at > at
          and sb_private.memory_visible(m.scope, m.platform, m.author_id, m.channel_id, m.everywhere,
                                        p_platform, p_user_id, p_channel_id, p_direct, p_member)
        order by rank desc, m.created_at desc
        limit lim
      ), hits as (
        select coalesce(n.id, w.id) as id, n.distance, coalesce(w.rank, 0) as rank
        from (select * from near where distance <= 0.6) n full join words w on w.id = n.id
      )
      select m.id, m.scope, m.text, m.everywhere, m.created_at,
             (coalesce(1 - h.distance, 0) + h.rank)::double precision
      from hits h join public.memories m on m.id = h.id
      order by 6 desc, m.created_at desc, m.id
      limit lim;
    end
    $f$
  $body$,
    ext_schema,
    dims,
    case when iterative
      then $s$perform set_config('hnsw.iterative_scan', 'relaxed_order', true);
      perform set_config('hnsw.ef_search', '100', true);$s$
      else $s$perform set_config('hnsw.ef_search', '100', true);$s$
    end);
  return true;
end
$fn$;

select sb_private.setup_memory_vectors();

-- `memory` is a tool family (src/contract/toolsets.ts): tenants may name it in their families.
-- Same function as 20261201000200, with the one more name.
create or replace function public.set_tenant_tools(p_tenant text, p_tools text[] default null)
returns table (slug text, tools text[])
language plpgsql
as $$
declare
  bad text;
begin
  select x into bad from unnest(coalesce(p_tools, '{}')) x
  where x not in ('campaigns', 'competitors', 'quotes', 'business', 'web', 'images', 'artifacts', 'memory') limit 1;
  if bad is not null then
    raise exception using errcode = 'SB001', message = format('unknown tool family %L', bad);
  end if;
  if not exists (select 1 from public.tenants t where t.slug = p_tenant) then
    raise exception using errcode = 'SB001', message = format('unknown tenant %L', p_tenant);
  end if;
  update public.tenants t
  set settings = case when p_tools is null then t.settings - 'tools'
                      else t.settings || jsonb_build_object('tools', to_jsonb(array(select distinct unnest(p_tools) order by 1)))
                 end,
      updated_at = now()
  where t.slug = p_tenant;
  return query
  select t.slug, case when t.settings ? 'tools' then array(select jsonb_array_elements_text(t.settings -> 'tools')) end
  from public.tenants t where t.slug = p_tenant;
end
$$;

-- The turn record notes how many notes a turn recalled (never their text).
alter table public.turn_log add column if not exists memories integer not null default 0;

select sb_private.lock_down(
  array['memory_add', 'memory_recall', 'memory_set_embedding', 'memory_list', 'memory_forget', 'memory_counts',
        'memory_admin_list', 'memory_purge', 'set_tenant_tools'],
  array['memories']
);
