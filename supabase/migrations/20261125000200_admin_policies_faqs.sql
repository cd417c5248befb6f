-- Seed 004's admin endpoints (/tts_admin/policies|faqs/{business_id}): list, create, update and
-- delete a business's policies and FAQs. The tenant is the business's own, found from the id
-- in the path; nothing here takes a tenant from the caller.

create or replace function public.admin_business(p_business_id uuid)
returns table (business_id uuid, tenant_id uuid, slug text, name text)
language sql stable
as $$
  select b.id, b.tenant_id, b.slug, b.name from public.businesses b where b.id = p_business_id
$$;

create or replace function public.admin_list_policies(p_business_id uuid, p_topic text default null)
returns table (id uuid, business_id uuid, topic text, title text, content text, updated_at timestamptz)
language sql stable
as $$
  select p.id, p.business_id, p.topic, p.title, p.content, p.updated_at
  from public.policies p
  where p.business_id = p_business_id
    and (p_topic is null or sb_private.topic_key(p.topic) = sb_private.topic_key(p_topic))
  order by p.topic, p.id
$$;

-- Insert (p_id null) or update one policy of the business; null arguments keep the stored value.
create or replace function public.admin_save_policy(
  p_business_id uuid, p_id uuid default null, p_topic text default null, p_title text default null, p_content text default null
)
returns table (id uuid, business_id uuid, topic text, title text, content text, updated_at timestamptz)
language plpgsql
as $$
begin
  if p_id is null then
    return query
    insert into public.policies as p (tenant_id, business_id, topic, title, content)
    select b.tenant_id, b.id, btrim(p_topic), coalesce(nullif(btrim(p_title), ''), initcap(btrim(p_topic))), p_content
    from public.businesses b where b.id = p_business_id
    returning p.id, p.business_id, p.topic, p.title, p.content, p.updated_at;
  else
    return query
    update public.policies as p set
      topic = coalesce(btrim(p_topic), p.topic), title = coalesce(nullif(btrim(p_title), ''), p.title),
      content = coalesce(p_content, p.content), updated_at = now()
    where p.id = p_id and p.business_id = p_business_id
    returning p.id, p.business_id, p.topic, p.title, p.content, p.updated_at;
  end if;
exception when unique_violation then
  raise exception using errcode = 'SB001', message = 'conflict: this business already has a policy on that topic';
end
$$;

create or replace function public.admin_delete_policy(p_business_id uuid, p_id uuid)
returns table (id uuid)
language sql
as $$
  delete from public.policies p where p.id = p_id and p.business_id = p_business_id returning p.id
$$;

create or replace function public.admin_list_faqs(p_business_id uuid, p_topic text default null)
returns table (id uuid, business_id uuid, topic text, question text, answer text, tags text[], updated_at timestamptz)
language sql stable
as $$
  select f.id, f.business_id, f.topic, f.question, f.answer, f.tags, f.updated_at
  from public.faqs f
  where f.business_id = p_business_id
    and (p_topic is null or sb_private.topic_key(f.topic) = sb_private.topic_key(p_topic))
  order by f.topic, f.question, f.id
$$;

create or replace function public.admin_save_faq(
  p_business_id uuid, p_id uuid default null, p_topic text default null, p_question text default null,
  p_answer text default null, p_tags text[] default null
)
returns table (id uuid, business_id uuid, topic text, question text, answer text, tags text[], updated_at timestamptz)
language plpgsql
as $$
begin
  if p_id is null then
    return query
    insert into public.faqs as f (tenant_id, business_id, topic, question, answer, tags)
    select b.tenant_id, b.id, btrim(p_topic), btrim(p_question), p_answer, coalesce(p_tags, '{}')
    from public.businesses b where b.id = p_business_id
    returning f.id, f.business_id, f.topic, f.question, f.answer, f.tags, f.updated_at;
  else
    return query
    update public.faqs as f set
      topic = coalesce(btrim(p_topic), f.topic), question = coalesce(btrim(p_question), f.question),
      answer = coalesce(p_answer, f.answer), tags = coalesce(p_tags, f.tags), updated_at = now()
    where f.id = p_id and f.business_id = p_business_id
    returning f.id, f.business_id, f.topic, f.question, f.answer, f.tags, f.updated_at;
  end if;
exception when unique_violation then
  raise exception using errcode = 'SB001', message = 'conflict: this business already has that question';
end
$$;

create or replace function public.admin_delete_faq(p_business_id uuid, p_id uuid)
returns table (id uuid)
language sql
as $$
  delete from public.faqs f where f.id = p_id and f.business_id = p_business_id returning f.id
$$;

-- What the data port checks at startup (see 20261101000600).
create or replace function public.schema_info()
returns table (version text, vectors_available boolean, embedding_dimensions integer)
language sql stable
as $$
  select '20261125000200'::text,
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
    where n.nspname = 'public' and p.proname in ('admin_business', 'admin_list_policies', 'admin_save_policy', 'admin_delete_policy',
      'admin_list_faqs', 'admin_save_faq', 'admin_delete_faq', 'schema_info')
  loop
    execute format('revoke execute on function %s from public, anon, authenticated', f);
    if exists (select 1 from pg_roles where rolname = 'service_role') then
      execute format('grant execute on function %s to service_role', f);
    end if;
  end loop;
end $$;
