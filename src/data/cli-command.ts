/** The CLIs a hint or a usage line may name, by npm script, with the file each compiles to under dist/. */
const CLI_FILES = {
  'db:migrate': 'data/cli/migrate',
  'db:embed': 'data/cli/embed',
  'db:template': 'data/cli/template',
  import: 'data/cli/import',
  tenants: 'data/cli/tenants',
  usage: 'data/cli/usage',
  'discord:deploy': 'adapters/discord/deploy',
  chat: 'adapters/terminal/main',
};

/**
 * How to run one of our CLIs where this process runs: the npm script in a checkout (it runs the
 * TypeScript with tsx), the compiled file in the image, which has dist/ but no src/.
 */
export function cliCommand(script: keyof typeof CLI_FILES, args = '', moduleUrl = import.meta.url): string {
  const compiled = new URL(moduleUrl).pathname.includes('/dist/');
  if (compiled) return `node dist/${CLI_FILES[script]}.js${args ? ` ${args}` : ''}`;
  return `npm run ${script}${args ? ` -- ${args}` : ''}`;
}
