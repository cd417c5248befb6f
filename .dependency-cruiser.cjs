/**
 * The layers of src/ and the one rule each keeps (docs/architecture.md). `npm run lint:deps`
 * (part of `npm run lint`) fails on any import that breaks them, and on any import circle.
 * Type-only imports count: a type import is still an arrow between layers.
 */
const layer = (name) => `^src/${name}/`;
const below = {
  // The shared vocabulary: types and the few pure helpers every layer uses.
  contract: ['agent', 'tools', 'adapters', 'provider', 'data', 'state', 'security', 'turns'],
  // Network plumbing shared by the platform and model clients: knows nothing of ours.
  net: ['contract', 'agent', 'tools', 'adapters', 'provider', 'data', 'state', 'security', 'reply', 'turns'],
  // Infrastructure: none of it knows the agent, the tools or the platforms.
  provider: ['agent', 'tools', 'adapters', 'data', 'state', 'turns'],
  data: ['agent', 'tools', 'adapters', 'provider', 'state', 'security', 'turns'],
  state: ['agent', 'tools', 'adapters', 'provider', 'data', 'security', 'turns'],
  security: ['agent', 'tools', 'adapters', 'provider', 'turns'],
  reply: ['agent', 'tools', 'adapters', 'provider', 'data', 'state', 'security', 'turns'],
  turns: ['agent', 'tools', 'adapters'],
  // The tools and the agent meet only through the contract.
  tools: ['agent', 'adapters', 'turns'],
  agent: ['tools', 'adapters', 'turns'],
  // OpenTelemetry spans: every layer may call it, it knows none of them (the contract's types aside).
  telemetry: ['agent', 'tools', 'adapters', 'provider', 'data', 'state', 'security', 'reply', 'turns'],
};

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: two modules that cannot be understood (or loaded) apart.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...Object.entries(below).map(([from, banned]) => ({
      name: `${from}-layer`,
      severity: 'error',
      comment: `src/${from} may not import ${banned.map((b) => `src/${b}`).join(', ')}.`,
      // The CLIs under src/data/cli are entry points (they wire the provider to the data layer).
      from: { path: layer(from), pathNot: '^src/data/cli/' },
      to: { path: `^src/(${banned.join('|')})/` },
    })),
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
        pathNot: [
          '^src/main\\.ts$',
          '^src/adapters/console/main\\.ts$',
          '^src/data/cli/',
          '^src/adapters/discord/deploy\\.ts$',
          '\\.d\\.ts$',
        ],
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
