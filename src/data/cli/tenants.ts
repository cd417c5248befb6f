/**
 * npm run tenants -- <command>
 *
 *   pending                                   workspaces waiting for a tenant (TENANT_MODE=strict installs)
 *   approve <slack|discord|console|http> <workspace id> --tenant <slug>   map a workspace to a tenant (waiting or not)
 *   reject <slack|discord> <workspace id>     drop a waiting workspace's request
 *   installations                             Slack workspaces installed through OAuth (no tokens shown)
 *   token create <tenant> [--label <text>]    a new API token for the tenant, printed once (only its hash is kept)
 *   token revoke <id or prefix>               revoke a token (the prefix `token list` shows)
 *   token list [tenant]                       tokens: id, tenant, prefix, label, created, last used, revoked (no secrets)
 *   list                                      tenants and their tool families
 *   tools <tenant> <families|auto|none>       set a tenant's tool families (comma list), or back to automatic
 *   thread-context <tenant> <on|off|default>  whether the bot reads the thread before a mention for this tenant
 *   approvals <tenant> [--policy …] [--taint on|off] [--approvers …]   show or change who approves which tools (issue 43)
 *   channel set|list|show|clear …            settings per channel: model, instructions, toolsets, reply mode, language (issue 46)
 *   memory export|purge <tenant>              a tenant's long-term memory as JSON lines, or deleting it (issue 45)
 */
import { fileURLToPath } from 'node:url';
import { openDataPort } from '../index.js';
import type { AdminDataPort } from '../rpc-port.js';
import { DataError } from '../../contract/data.js';
import { createApiToken, listApiTokens, revokeApiToken } from '../api-tokens.js';
import {
  installationListRow,
  tenantToolsListRow,
  tenantThreadContextRow,
  tenantToolsRow,
  workspaceDecisionRow,
  workspaceRequestRow,
} from '../rows.js';
import { parseFamilies, TOOL_FAMILIES } from '../../contract/toolsets.js';
import { cliSetup, describeTarget, fail } from './common.js';
import { HELP_OPTION, readArgs } from '../../cli/args.js';
import { cliCommand } from '../cli-command.js';
import { APPROVALS_OPTIONS, APPROVALS_USAGE, approvalsCommand } from './tenant-approvals.js';
import { CHANNEL_OPTIONS, CHANNEL_USAGE, channelCommand } from './tenant-channels.js';
import { MCP_OPTIONS, MCP_USAGE, mcpCommand, type McpCliDeps } from './tenant-mcp.js';
import { MEMORY_USAGE, memoryCommand } from './tenant-memory.js';

export const TENANTS_USAGE = `Usage: ${[
  'pending',
  'approve <slack|discord|console|http> <workspace id> --tenant <slug>',
  'reject <slack|discord> <workspace id>',
  'installations',
  'token create <tenant> [--label <text>]',
  'token revoke <id or prefix>',
  'token list [tenant]',
  'list',
  `tools <tenant> <${TOOL_FAMILIES.join(',')}|auto|none>`,
  'thread-context <tenant> <on|off|default>',
  APPROVALS_USAGE,
  ...CHANNEL_USAGE,
  ...MCP_USAGE,
  ...MEMORY_USAGE,
]
  .map((command) => cliCommand('tenants', command))
  .join('\n       ')}`;

/** The command line of `npm run tenants`: the command and its words, `--tenant`, `--label`, `--help`. */
export function readTenantsArgs(argv: string[]) {
  return readArgs(
    argv,
    {
      ...HELP_OPTION,
      tenant: { type: 'string' },
      label: { type: 'string' },
      ...APPROVALS_OPTIONS,
      ...CHANNEL_OPTIONS,
      ...MCP_OPTIONS,
    },
    { positionals: true },
  );
}

/** Runs one command against `port`, printing to `out`; returns the exit code. */
export async function tenantsCommand(
  port: AdminDataPort,
  argv: string[],
  out: (line: string) => void,
  /** For `mcp` (issue 44): the settings and a logger; the process's own when not given. */
  mcpDeps?: McpCliDeps,
): Promise<number> {
  const args = readTenantsArgs(argv);
  if (!args.ok) {
    out(`${args.problem}\n${TENANTS_USAGE}`);
    return 2;
  }
  const { positionals: positional, values: options } = args;
  if (options.help) {
    out(TENANTS_USAGE);
    return 0;
  }
  const [command, platform, workspaceId] = positional;
  const table = (rows: string[][]) => {
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    for (const r of rows)
      out(
        r
          .map((cell, i) => cell.padEnd(widths[i]!))
          .join('  ')
          .trimEnd(),
      );
  };
  switch (command) {
    case 'pending': {
      const rows = await port.admin('list_workspace_requests', {}, workspaceRequestRow);
      if (rows.length === 0) {
        out('No workspace is waiting for a tenant.');
        return 0;
      }
      table([
        ['platform', 'workspace', 'name', 'requested by', 'requested at'],
        ...rows.map((r) => [r.platform, r.workspace_id, r.name ?? '', r.requested_by ?? '', r.requested_at]),
      ]);
      return 0;
    }
    case 'approve':
    case 'reject': {
      const tenant = options.tenant;
      if (
        !platform ||
        !['slack', 'discord', 'console', 'http'].includes(platform) ||
        !workspaceId ||
        (command === 'approve' && tenant === undefined)
      ) {
        out(TENANTS_USAGE);
        return 2;
      }
      const [row] = await port.admin(
        'decide_workspace_request',
        { platform, workspace_id: workspaceId, tenant: command === 'approve' ? (tenant ?? null) : null },
        workspaceDecisionRow,
      );
      out(
        command === 'approve'
          ? `${platform} workspace ${workspaceId} is now served by tenant ${row?.tenant_slug ?? String(tenant)}.`
          : `The request of ${platform} workspace ${workspaceId} was dropped.`,
      );
      return 0;
    }
    case 'installations': {
      const rows = await port.admin('slack_list_installations', {}, installationListRow);
      if (rows.length === 0) {
        out('No Slack workspace has installed the app through OAuth.');
        return 0;
      }
      table([
        ['installation', 'name', 'tenant', 'installed by', 'installed at'],
        ...rows.map((r) => [
          r.installation_key,
          r.team_name ?? '',
          r.tenant_slug ?? '(pending)',
          r.installer_user_id ?? '',
          r.installed_at,
        ]),
      ]);
      return 0;
    }
    case 'token': {
      const [, action, arg] = positional;
      const label = options.label;
      try {
        if (action === 'create' && arg) {
          const { token, record } = await createApiToken(port, arg, label);
          out(`Created token ${record.id} (${record.prefix}…) for tenant ${record.tenant_slug}.`);
          out('It is shown this once; only its hash is kept:');
          out(token);
          return 0;
        }
        if (action === 'revoke' && arg) {
          const record = await revokeApiToken(port, arg);
          out(`Revoked token ${record.id} (${record.prefix}…) of tenant ${record.tenant_slug}.`);
          return 0;
        }
        if (action === 'list') {
          const rows = await listApiTokens(port, arg);
          if (rows.length === 0) {
            out(arg ? `Tenant ${arg} has no API tokens.` : 'No API tokens.');
            return 0;
          }
          table([
            ['id', 'tenant', 'prefix', 'label', 'created', 'last used', 'revoked'],
            ...rows.map((r) => [
              r.id,
              r.tenant_slug,
              `${r.prefix}…`,
              r.label ?? '',
              r.created_at,
              r.last_used_at ?? '',
              r.revoked_at ?? '',
            ]),
          ]);
          return 0;
        }
      } catch (err) {
        // unknown tenant, no or several matching tokens: the database's own words
        if (err instanceof DataError && err.detail) {
          out(`Error: ${err.detail}`);
          return 1;
        }
        throw err;
      }
      out(TENANTS_USAGE);
      return 2;
    }
    case 'list': {
      const rows = await port.admin('list_tenant_tools', {}, tenantToolsListRow);
      table([
        ['tenant', 'name', 'tools'],
        ...rows.map((r) => [
          `${r.slug}${r.is_default ? ' (default)' : ''}`,
          r.name,
          r.tools ? r.tools.join(',') || '(none)' : 'auto',
        ]),
      ]);
      return 0;
    }
    case 'tools': {
      // positional: tools <tenant> <families>
      const [, slug, list] = positional;
      if (!slug || list === undefined) {
        out(TENANTS_USAGE);
        return 2;
      }
      const parsed = parseFamilies(list);
      if (!parsed.ok) {
        out(`Cannot set the tools of ${slug}: ${parsed.error}.`);
        return 2;
      }
      const [row] = await port.admin('set_tenant_tools', { tenant: slug, tools: parsed.families }, tenantToolsRow);
      out(
        row?.tools
          ? `Tenant ${slug} now has the tool families: ${row.tools.join(', ') || '(none)'}.`
          : `Tenant ${slug} now gets its tool families automatically (those it has data and configuration for).`,
      );
      out('Running bots see the change within 10 seconds.');
      return 0;
    }
    case 'thread-context': {
      const [, slug, value] = positional;
      const on = value === 'on' ? true : value === 'off' ? false : value === 'default' ? null : undefined;
      if (!slug || on === undefined) {
        out(TENANTS_USAGE);
        return 2;
      }
      const [row] = await port.admin('set_tenant_thread_context', { tenant: slug, on }, tenantThreadContextRow);
      out(
        row?.thread_context === false
          ? `Tenant ${slug}: the bot no longer reads the thread before a mention.`
          : row?.thread_context === true
            ? `Tenant ${slug}: the bot reads the thread before a mention (unless THREAD_CONTEXT=off).`
            : `Tenant ${slug}: the deployment's THREAD_CONTEXT decides whether the bot reads the thread before a mention.`,
      );
      out('Running bots see the change within 10 seconds.');
      return 0;
    }
    case 'approvals': {
      const [, slug, action] = positional;
      const { policy, taint, approvers } = options;
      const code = await approvalsCommand(
        port,
        slug,
        action,
        { policy, taint, approvers, 'slack-group': options['slack-group'], 'discord-role': options['discord-role'] },
        out,
      );
      if (code === 2) out(TENANTS_USAGE);
      return code;
    }
    case 'channel':
      return usageOn2(await channelCommand(port, positional.slice(1), options, out), out);
    case 'memory':
      return usageOn2(await memoryCommand(port, positional.slice(1), out), out);
    case 'mcp': {
      const code = await mcpCommand(port, positional.slice(1), options, out, mcpDeps ?? cliSetup());
      if (code === 2) out(TENANTS_USAGE);
      return code;
    }
    default:
      out(TENANTS_USAGE);
      return command === undefined || command === 'help' ? 0 : 2;
  }
}

/** A command's exit code; on 2 (a wrong command line) the usage follows what it printed. */
function usageOn2(code: number, out: (line: string) => void): number {
  if (code === 2) out(TENANTS_USAGE);
  return code;
}

async function main(): Promise<number> {
  // A mistyped command line or --help is answered before the database is opened.
  const args = readTenantsArgs(process.argv.slice(2));
  if (!args.ok) {
    console.error(`${args.problem}\n${TENANTS_USAGE}`);
    return 2;
  }
  if (args.values.help) {
    console.log(TENANTS_USAGE);
    return 0;
  }
  const { config, log } = cliSetup();
  const port = await openDataPort(config, log, { seedDemo: false });
  try {
    if (process.argv.length > 2) console.error(`(${describeTarget(config)})`);
    return await tenantsCommand(port, process.argv.slice(2), (line) => console.log(line), { config, log });
  } finally {
    await port.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main().then((code) => process.exit(code), fail);
