-- The token ledger takes several turns' rows in one statement: when many turns end at once
-- (a burst across a workspace, a replica catching up), the data port writes the rows that
-- queued while one write was in flight as one insert, instead of one round trip and one
-- commit each. Each turn still waits for the commit that holds its row.
create or replace function public.record_turn_usages(p_rows jsonb)
returns table (id bigint)
language sql
as $$
  insert into public.token_ledger (tenant_id, platform, channel_id, thread_id, user_id, model, prompt_tokens, completion_tokens, tool_calls)
  select r.tenant_id, r.platform, r.channel_id, r.thread_id, r.user_id, r.model, r.prompt_tokens, r.completion_tokens, coalesce(r.tool_calls, 0)
  from jsonb_to_recordset(p_rows) as r(
    tenant_id uuid, platform text, channel_id text, thread_id text, user_id text, model text,
    prompt_tokens integer, completion_tokens integer, tool_calls integer
  )
  returning token_ledger.id
$$;

-- What the data port checks at startup (see 20261101000600). From here on the version is the
-- newest one recorded in supabase_migrations.schema_migrations, where both `npm run db:migrate`
-- and `supabase db push` record each migration, so later migrations no longer redefine this
-- function. Security definer: the service role need not read the migrations schema itself.
create or replace function public.schema_info()
returns table (version text, vectors_available boolean, embedding_dimensions integer)
language sql stable
security definer
set search_path = pg_catalog, public
as $$
  select (select max(m.version) from supabase_migrations.schema_migrations m),
         a.attname is not null,
         case when a.attname is not null and a.atttypmod > 0 then a.atttypmod end
  from (select 1) one
  left join pg_attribute a
    on a.attrelid = 'public.campaigns'::regclass and a.attname = 'embedding' and not a.attisdropped
$$;

select sb_private.lock_down(array['record_turn_usages', 'schema_info']);
