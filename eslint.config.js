// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.data/', 'coverage/'] },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } } },
  { files: ['**/*.mjs'], languageOptions: { globals: { process: 'readonly', globalThis: 'readonly', setInterval: 'readonly' } } },
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
  {
    files: ['src/**/*.ts'],
    ignores: ['src/adapters/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['@slack/*', 'discord.js', '@discordjs/*', 'discord-interactions'], message: 'Only src/adapters speaks to Slack and Discord.' }] }],
    },
  },
  {
    files: ['src/tools/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/agent/*', '**/agent/**'], message: 'Tools and the agent meet through src/contract; a tool never imports the agent.' },
            { group: ['@slack/*', 'discord.js', '@discordjs/*', 'discord-interactions'], message: 'Only src/adapters speaks to Slack and Discord.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/agent/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/tools/*', '**/tools/**'], message: 'The agent runs whatever tools it is given; it never imports a tool family (use src/contract).' },
            { group: ['@slack/*', 'discord.js', '@discordjs/*', 'discord-interactions'], message: 'Only src/adapters speaks to Slack and Discord.' },
          ],
        },
      ],
    },
  },
  {
    // The console adapter, CLIs and benchmarks talk to a terminal on purpose.
    files: ['src/adapters/console/**', 'src/**/cli/**', 'bench/**', 'scripts/**', 'test/**'],
    rules: { 'no-console': 'off' },
  },
);
