/**
 * The layers of src/ and the one rule each keeps (docs/architecture.md). `npm run lint:deps`
 * (part of `npm run lint`) fails on any import that breaks them, and on any import circle.
 * Type-only imports count: a type import is still an arrow between layers.
 */
// What each folder of src/ may import of ours (anything else under src/ is an error). A
// folder missing here, or a file at the root of src/ beside main.ts, fails the
// `every-module-in-a-layer` rule below: a new folder comes with its rule.
const mayImport = {
  // Pure helpers that know nothing of ours: the network plumbing of the platform and model
  // clients and every Redis connection (one factory, one reconnect policy), and the strict
  // command-line reading every CLI shares.
  net: [],
  cli: [],
  // The platform-neutral reply model and text limits.
  reply: [],
  // The shared vocabulary: types and the few pure helpers every layer uses.
  contract: ['reply'],
  // Every setting, parsed once: a bottom layer every other may read (a `Pick` of `Config` each).
  config: ['contract'],
  // Logs, metrics and OpenTelemetry spans: every layer may call it, it knows none of them.
  telemetry: ['contract'],
  // Infrastructure: none of it knows the agent, the tools or the platforms.
  provider: ['contract', 'config', 'telemetry', 'net'],
  data: ['contract', 'config', 'telemetry'],
  state: ['contract', 'config', 'telemetry', 'net'],
  security: ['contract', 'config', 'telemetry', 'reply'],
  inbox: ['contract', 'config', 'telemetry', 'net'],
  // Files shared with a message: fetched from the platform's own hosts, typed by their bytes,
  // read into text or image parts. Knows no agent, tool or platform SDK.
  attachments: ['contract', 'config', 'telemetry', 'net', 'security'],
  // A tenant's MCP servers (issue 44): their rows, connections, cached tool lists and tool adapters.
  mcp: ['contract', 'config', 'telemetry', 'net', 'security', 'data', 'state'],
  // The tools and the agent meet only through the contract.
  tools: ['contract', 'config', 'telemetry', 'net', 'reply', 'provider', 'data', 'state', 'security'],
  agent: ['contract', 'config', 'telemetry', 'net', 'reply', 'provider', 'data', 'state', 'security', 'attachments'],
  // The platforms: everything below them but the tool families (they reach the agent, the inbox
  // and the state; the tools' commands and buttons come through the contract).
  adapters: [
    'contract',
    'config',
    'telemetry',
    'net',
    'reply',
    'provider',
    'data',
    'state',
    'security',
    'inbox',
    'agent',
    'attachments',
    'mcp',
  ],
  // The composition: builds everything and starts the adapters.
  wiring: [
    'contract',
    'config',
    'telemetry',
    'net',
    'reply',
    'provider',
    'data',
    'state',
    'security',
    'inbox',
    'tools',
    'agent',
    'adapters',
    'attachments',
    'mcp',
  ],
};
// The programs: `npm start`, `npm run chat`, `npm run discord:deploy`; nothing imports them.
const programs = ['^src/main\\.ts$', '^src/adapters/terminal/main\\.ts$', '^src/adapters/discord/deploy\\.ts$'];
// The entry points: the programs and the data CLIs (with their shared helpers). They wire what
// they need (the data CLIs bring the provider in for embeddings), so they may import any folder.
const entryPoints = [...programs, '^src/data/cli/'];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: two modules that cannot be understood (or loaded) apart.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...Object.entries(mayImport).map(([from, allowed]) => ({
      name: `${from}-layer`,
      severity: 'error',
      comment: `src/${from} may import ${allowed.length ? allowed.map((a) => `src/${a}`).join(', ') : 'nothing of ours'}.`,
      from: { path: `^src/${from}/`, pathNot: entryPoints },
      to: { path: '^src/', pathNot: `^src/(${[from, ...allowed].join('|')})/` },
    })),
    {
      name: 'every-module-in-a-layer',
      severity: 'error',
      comment:
        'Each module of src/ lives in a folder with a rule above (or is an entry point); give a new folder its rule.',
      from: { path: '^src/', pathNot: [`^src/(${Object.keys(mayImport).join('|')})/`, ...entryPoints] },
      to: {},
    },
    {
      name: 'nothing-imports-a-program',
      severity: 'error',
      comment: 'A program runs a process when it is loaded; importing one would run it twice.',
      from: { path: '^src/' },
      to: { path: programs },
    },
    {
      name: 'platform-sdks-in-adapters-only',
      severity: 'error',
      comment: 'Only src/adapters speaks to Slack and Discord.',
      from: { path: '^src/', pathNot: '^src/adapters/' },
      to: { path: 'node_modules/(@slack/|discord\\.js|@discordjs/|discord-interactions)' },
    },
    {
      name: 'no-orphans',
      severity: 'error',
      comment: 'A module nothing imports (entry points excepted) is dead code.',
      from: {
        orphan: true,
        path: '^src/',
        pathNot: [...entryPoints, '\\.d\\.ts$'],
      },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
