// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Only src/adapters speaks to Slack and Discord; each entry adds its own restriction to that one. */
function layerRules(entries) {
  const sdks = {
    // Package names only (a regex, not a glob: a file of ours named discord.ts is not the SDK).
    regex: '^(@slack/|discord\\.js$|@discordjs/|discord-interactions$)',
    message: 'Only src/adapters speaks to Slack and Discord.',
  };
  return entries.map(({ files, ignores, pattern }) => ({
    files,
    ...(ignores ? { ignores } : {}),
    rules: { 'no-restricted-imports': ['error', { patterns: pattern ? [pattern, sdks] : [sdks] }] },
  }));
}

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.data/', 'coverage/'] },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: {
      globals: { process: 'readonly', globalThis: 'readonly', setInterval: 'readonly', setImmediate: 'readonly' },
    },
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  // The layers (docs/architecture.md); .dependency-cruiser.cjs checks the rest and import circles.
  ...layerRules([
    { files: ['src/**/*.ts'], ignores: ['src/adapters/**'] },
    {
      files: ['src/tools/**/*.ts'],
      pattern: {
        group: ['**/agent/*', '**/agent/**'],
        message: 'Tools and the agent meet through src/contract; a tool never imports the agent.',
      },
    },
    {
      files: ['src/agent/**/*.ts'],
      pattern: {
        group: ['**/tools/*', '**/tools/**'],
        message: 'The agent runs whatever tools it is given; it never imports a tool family (use src/contract).',
      },
    },
  ]),
  {
    // Files that outgrow one reading get split by concern (issue 40). Counted as `wc -l` counts:
    // comments and blank lines are part of what a reader reads.
    files: ['src/**/*.ts'],
    // Generated or demo data, not code to read.
    ignores: ['src/data/demo/**'],
    rules: { 'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }] },
  },
  {
    // The console adapter, CLIs and benchmarks talk to a terminal on purpose.
    files: ['src/adapters/terminal/**', 'src/**/cli/**', 'bench/**', 'scripts/**', 'test/**'],
    rules: { 'no-console': 'off' },
  },
);
