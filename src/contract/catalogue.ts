/**
 * The SQL functions the data port may call: their names, argument names and argument
 * types, mirroring `supabase/migrations/`. This list is the port's allow-list (no other
 * identifier ever reaches SQL), the source of the TypeScript argument types tools are
 * checked against, and what `test/data/catalogue.test.ts` compares with `pg_proc`.
 *
 * Argument names here drop the SQL `p_` prefix: `{ tenant_id }` is sent as `p_tenant_id`.
 * A trailing `?` marks an argument with a SQL default (it may be omitted or null).
 */

const campaignFilters = {
  channels: 'text[]?',
  value_props: 'text[]?',
  sentiments: 'text[]?',
  visual_styles: 'text[]?',
  date_from: 'date?',
  date_to: 'date?',
  has_offer: 'boolean?',
  companies: 'text[]?',
} as const;

/** Functions the tools call through `DataPort.call`. */
export const READ_FUNCTIONS = {
  default_tenant: {},
  resolve_tenant: { platform: 'text', workspace_id: 'text' },
  search_campaigns: { tenant_id: 'uuid', query_embedding: 'real[]', limit: 'integer?', ...campaignFilters },
  search_campaigns_by_text: { tenant_id: 'uuid', query: 'text', limit: 'integer?', ...campaignFilters },
  search_campaigns_by_copy: { tenant_id: 'uuid', query_embedding: 'real[]', limit: 'integer?', ...campaignFilters },
  filter_campaigns: { tenant_id: 'uuid', ...campaignFilters, limit: 'integer?' },
  aggregate_campaigns: { tenant_id: 'uuid', group_by: 'text', ...campaignFilters, limit: 'integer?' },
  list_campaign_facets: { tenant_id: 'uuid' },
  get_campaigns: { tenant_id: 'uuid', ids: 'uuid[]' },
  embedding_status: { tenant_id: 'uuid' },
  list_competitor_ids: { tenant_id: 'uuid', campaign_id: 'uuid?' },
  get_competitor: { tenant_id: 'uuid', key: 'text' },
  search_products: {
    tenant_id: 'uuid',
    query: 'text?',
    family: 'text?',
    grade: 'text?',
    form: 'text?',
    thickness_mm: 'double precision?',
    limit: 'integer?',
  },
  get_pricing_for_material: {
    tenant_id: 'uuid',
    family: 'text',
    grade: 'text?',
    thickness_mm: 'double precision?',
    form: 'text?',
    width_mm: 'double precision?',
    length_mm: 'double precision?',
    limit: 'integer?',
  },
  compare_suppliers: {
    tenant_id: 'uuid',
    product_id: 'uuid?',
    family: 'text?',
    grade: 'text?',
    form: 'text?',
    thickness_mm: 'double precision?',
    quantity: 'double precision?',
    limit: 'integer?',
  },
  get_business: { tenant_id: 'uuid', business_id: 'uuid?' },
  get_business_services: { tenant_id: 'uuid', business_id: 'uuid?' },
  get_working_hours: { tenant_id: 'uuid', business_id: 'uuid?' },
  get_latest_booking: { tenant_id: 'uuid', customer_phone: 'text', business_id: 'uuid?', limit: 'integer?' },
  get_booking_by_id: { tenant_id: 'uuid', booking_id: 'text' },
  // A guest's lookup: the booking only when its phone or email matches too, without email or notes.
  get_booking_for_guest: { tenant_id: 'uuid', booking_id: 'text', customer_phone: 'text?', customer_email: 'text?' },
  get_policies: { tenant_id: 'uuid', topic: 'text?', business_id: 'uuid?' },
  get_faqs: { tenant_id: 'uuid', topic: 'text?', business_id: 'uuid?', limit: 'integer?' },
  get_availability: {
    tenant_id: 'uuid',
    date: 'date',
    duration_minutes: 'integer?',
    business_id: 'uuid?',
    after: 'timestamp with time zone?',
    step_minutes: 'integer?',
    limit: 'integer?',
  },
  // Which tool families the tenant has data for (the automatic toolset; src/tools/toolsets.ts).
  tenant_data_families: { tenant_id: 'uuid' },
  // A turn's channel and its parent's settings (issue 46): read by the agent and the adapters' reply mode.
  channel_settings_for: { tenant_id: 'uuid', channel_ids: 'text[]' },
  // The one write a tool makes (append-only, into the tenant's own business): take_message.
  take_message: {
    tenant_id: 'uuid',
    name: 'text',
    contact: 'text',
    message: 'text',
    platform: 'text',
    user_id: 'text',
    business_id: 'uuid?',
  },
  // Long-term memory (issue 45): the tenant's notes, each with a scope (user, channel, team).
  memory_add: {
    tenant_id: 'uuid',
    scope: 'text',
    platform: 'text',
    user_id: 'text',
    text: 'text',
    member: 'boolean',
    max_per_user: 'integer',
    max_per_tenant: 'integer',
    ttl_days: 'integer',
    channel_id: 'text?',
    everywhere: 'boolean?',
    now: 'timestamp with time zone?',
  },
  memory_recall: {
    tenant_id: 'uuid',
    platform: 'text',
    user_id: 'text',
    channel_id: 'text',
    direct: 'boolean',
    member: 'boolean',
    query: 'text',
    query_embedding: 'real[]?',
    limit: 'integer?',
    now: 'timestamp with time zone?',
  },
  memory_set_embedding: { tenant_id: 'uuid', id: 'uuid', embedding: 'real[]' },
  memory_list: {
    tenant_id: 'uuid',
    platform: 'text',
    user_id: 'text',
    channel_id: 'text',
    member: 'boolean',
    limit: 'integer?',
    now: 'timestamp with time zone?',
  },
  memory_forget: {
    tenant_id: 'uuid',
    id: 'uuid',
    platform: 'text',
    user_id: 'text',
    member: 'boolean',
    channel_id: 'text?',
  },
} as const;

/** Maintenance functions for the import, embedding and migration CLIs; not for tools. */
export const ADMIN_FUNCTIONS = {
  import_stage: { tenant_id: 'uuid', import_id: 'uuid', table: 'text', seq: 'integer', rows: 'jsonb' },
  import_commit: { tenant_id: 'uuid', import_id: 'uuid' },
  import_abort: { tenant_id: 'uuid', import_id: 'uuid' },
  campaigns_missing_embeddings: { tenant_id: 'uuid', limit: 'integer?' },
  set_campaign_embeddings: { tenant_id: 'uuid', items: 'jsonb' },
  campaigns_missing_text_embeddings: { tenant_id: 'uuid', limit: 'integer?' },
  set_campaign_text_embeddings: { tenant_id: 'uuid', items: 'jsonb' },
  list_tenants: {},
  schema_info: {},
  // The token ledger (written by the core after each turn, read by /api/usage, the CLI and budgets).
  record_turn_usage: {
    tenant_id: 'uuid',
    platform: 'text',
    channel_id: 'text',
    thread_id: 'text',
    user_id: 'text',
    model: 'text',
    prompt_tokens: 'integer',
    completion_tokens: 'integer',
    tool_calls: 'integer',
    cached_prompt_tokens: 'integer?',
    reasoning_tokens: 'integer?',
    cost_usd: 'double precision?',
    // The turn's record (TurnRecord as snake_case JSON): its turn_log row, in the same statement.
    turn: 'jsonb?',
  },
  // Several turns' rows at once (see src/data/ledger-writer.ts): a JSON array of record_turn_usage's arguments.
  record_turn_usages: { rows: 'jsonb' },
  usage_totals: {
    tenant: 'text',
    from: 'timestamp with time zone',
    to: 'timestamp with time zone',
    user_id: 'text?',
    thread_id: 'text?',
  },
  usage_by_day: { from: 'timestamp with time zone', to: 'timestamp with time zone' },
  // The turn record, read by the operator console (/admin) and pruned after TURN_LOG_DAYS.
  turn_overview: { from: 'timestamp with time zone', to: 'timestamp with time zone' },
  list_turns: {
    tenant: 'text?',
    platform: 'text?',
    outcome: 'text?',
    flag: 'text?',
    offset: 'integer?',
    limit: 'integer?',
  },
  prune_turn_log: { days: 'integer', limit: 'integer?' },
  // The admin HTTP API's policies and FAQs (by the business in the path).
  admin_business: { business_id: 'uuid' },
  admin_list_policies: { business_id: 'uuid', topic: 'text?' },
  admin_save_policy: { business_id: 'uuid', id: 'uuid?', topic: 'text?', title: 'text?', content: 'text?' },
  admin_delete_policy: { business_id: 'uuid', id: 'uuid' },
  admin_list_faqs: { business_id: 'uuid', topic: 'text?' },
  admin_save_faq: {
    business_id: 'uuid',
    id: 'uuid?',
    topic: 'text?',
    question: 'text?',
    answer: 'text?',
    tags: 'text[]?',
  },
  admin_delete_faq: { business_id: 'uuid', id: 'uuid' },
  // Slack installations (OAuth) and workspaces waiting for a tenant (TENANT_MODE=strict).
  slack_save_installation: {
    installation_key: 'text',
    secret: 'text',
    tenant_mode: 'text',
    team_id: 'text?',
    team_name: 'text?',
    enterprise_id: 'text?',
    is_enterprise_install: 'boolean?',
    app_id: 'text?',
    bot_user_id: 'text?',
    bot_scopes: 'text[]?',
    installer_user_id: 'text?',
  },
  slack_get_installation: { installation_key: 'text' },
  slack_delete_installation: { installation_key: 'text' },
  slack_list_installations: {},
  list_workspace_requests: {},
  decide_workspace_request: { platform: 'text', workspace_id: 'text', tenant: 'text?' },
  // Per-tenant API tokens (src/adapters/http/tenant-tokens.ts): only their hashes reach SQL.
  api_token_create: { tenant: 'text', token_hash: 'text', prefix: 'text', label: 'text?' },
  api_token_revoke: { token: 'text' },
  api_token_list: { tenant: 'text?' },
  api_token_tenant: { token_hash: 'text' },
  tenant_by_slug: { slug: 'text' },
  // Tool families per tenant (`npm run tenants -- tools`, the admin API): null tools = automatic.
  set_tenant_tools: { tenant: 'text', tools: 'text[]?' },
  list_tenant_tools: {},
  // The thread before a mention, per tenant (issue 42): null = the deployment's THREAD_CONTEXT.
  set_tenant_thread_context: { tenant: 'text', on: 'boolean?' },
  list_tenant_thread_context: {},
  // Approval policy per tenant (issue 43): null approvals = the defaults.
  set_tenant_approvals: { tenant: 'text', approvals: 'jsonb?' },
  list_tenant_approvals: {},
  // Settings per channel (issue 46): the CLI, the admin API and the console; the turns page's sources.
  set_channel_settings: { tenant: 'text', channel_id: 'text', settings: 'jsonb' },
  clear_channel_settings: { tenant: 'text', channel_id: 'text' },
  list_channel_settings: { tenant: 'text?' },
  turn_settings: { ids: 'text[]' },
  // Pending approvals (issue 43): the agent's, never a tool's (a tool must not approve its own call).
  approval_create: {
    tenant_id: 'uuid',
    step_id: 'uuid',
    thread_key: 'text',
    platform: 'text',
    workspace_id: 'text',
    channel_id: 'text',
    thread_id: 'text',
    asker_id: 'text',
    approvers: 'jsonb',
    expires_at: 'timestamp with time zone',
    items: 'jsonb',
  },
  approval_decide: {
    tenant_id: 'uuid',
    id: 'uuid',
    decision: 'text',
    decided_by: 'text?',
    now: 'timestamp with time zone?',
  },
  approval_get: { tenant_id: 'uuid', id: 'uuid' },
  approval_step: { tenant_id: 'uuid', step_id: 'uuid' },
  approval_set_message: { tenant_id: 'uuid', step_id: 'uuid', message_ref: 'jsonb' },
  approval_counts: { from: 'timestamp with time zone', to: 'timestamp with time zone' },
  // Approvals past their time that nobody decided (the sweep's; issue 43).
  approval_due: { platforms: 'text[]', now: 'timestamp with time zone?', limit: 'integer?' },
  // Long-term memory (issue 45): the console's counts and notes, the CLI's export and purge.
  memory_counts: { now: 'timestamp with time zone?' },
  memory_admin_list: { tenant: 'text', scopes: 'text[]?', limit: 'integer?', now: 'timestamp with time zone?' },
  memory_purge: { tenant: 'text', scope: 'text?' },
  // The console's Forget on a team or channel note (never a person's own: refused).
  memory_admin_forget: { tenant: 'text', id: 'uuid' },
  // A tenant's MCP servers (issue 44; src/mcp/store.ts): headers arrive sealed.
  mcp_server_add: {
    tenant_id: 'uuid',
    name: 'text',
    url: 'text',
    headers_sealed: 'text?',
    auth_kind: 'text?',
    enabled_tools: 'text[]?',
  },
  mcp_server_list: { tenant_id: 'uuid' },
  mcp_server_remove: { tenant_id: 'uuid', name: 'text' },
  mcp_server_set_tools: { tenant_id: 'uuid', name: 'text', enabled_tools: 'text[]?', disabled_tools: 'text[]?' },
  // Their OAuth grants (issue 44; src/mcp/oauth-store.ts): the grant and a consent in progress arrive sealed.
  mcp_oauth_get: { tenant_id: 'uuid', server_id: 'uuid' },
  mcp_oauth_put: {
    tenant_id: 'uuid',
    server_id: 'uuid',
    client_id: 'text?',
    state_sealed: 'text?',
    pending_sealed: 'text?',
    status: 'text?',
    status_detail: 'text?',
    expires_at: 'timestamp with time zone?',
  },
  mcp_oauth_overview: {},
  // Feedback on answers (issue 47): one vote per person per turn, and the console's figures and list.
  feedback_record: {
    tenant_id: 'uuid',
    turn_id: 'uuid',
    user_hash: 'text',
    platform: 'text',
    value: 'text',
    comment: 'text?',
  },
  feedback_overview: { from: 'timestamp with time zone', to: 'timestamp with time zone' },
  list_feedback: { value: 'text?', tenant: 'text?', offset: 'integer?', limit: 'integer?', turn_id: 'uuid?' },
} as const;

export type ReadFunctionName = keyof typeof READ_FUNCTIONS;
export type AdminFunctionName = keyof typeof ADMIN_FUNCTIONS;
export type SqlFunctionName = ReadFunctionName | AdminFunctionName;

/** A function's arguments: SQL type per name, `?` when the SQL declares a default. */
export type ArgSpec = Readonly<Record<string, string>>;

export const ALL_FUNCTIONS: Readonly<Record<SqlFunctionName, ArgSpec>> = { ...READ_FUNCTIONS, ...ADMIN_FUNCTIONS };

export function isReadFunction(fn: string): fn is ReadFunctionName {
  return Object.hasOwn(READ_FUNCTIONS, fn);
}

export function isSqlFunction(fn: string): fn is SqlFunctionName {
  return Object.hasOwn(ALL_FUNCTIONS, fn);
}

/** The SQL type of an argument without the optional marker (`text[]?` → `text[]`). */
export function sqlType(spec: string): string {
  return spec.endsWith('?') ? spec.slice(0, -1) : spec;
}

// ---- TypeScript argument types derived from the specs ----

type BaseType<T> = T extends `${infer B}?` ? B : T;
type TsType<T> =
  BaseType<T> extends 'uuid' | 'text' | 'date' | 'timestamp with time zone'
    ? string
    : BaseType<T> extends 'text[]' | 'uuid[]'
      ? string[]
      : BaseType<T> extends 'integer' | 'double precision'
        ? number
        : BaseType<T> extends 'real[]'
          ? number[]
          : BaseType<T> extends 'boolean'
            ? boolean
            : unknown;
type OptionalKeys<A> = { [K in keyof A]: A[K] extends `${string}?` ? K : never }[keyof A];
type RequiredKeys<A> = Exclude<keyof A, OptionalKeys<A>>;
type Simplify<T> = { [K in keyof T]: T[K] } & {};
type ArgsOf<A> = Simplify<
  { -readonly [K in RequiredKeys<A>]: TsType<A[K]> } & { -readonly [K in OptionalKeys<A>]?: TsType<A[K]> | null }
>;

/** Arguments of each read function, e.g. `{ tenant_id: string; query: string; limit?: number | null; … }`. */
export type ReadFunctionArgs = { [F in ReadFunctionName]: ArgsOf<(typeof READ_FUNCTIONS)[F]> };
export type AdminFunctionArgs = { [F in AdminFunctionName]: ArgsOf<(typeof ADMIN_FUNCTIONS)[F]> };
export type SqlFunctionArgs = ReadFunctionArgs & AdminFunctionArgs;
