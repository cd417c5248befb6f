/** The CLIs a hint may name, by npm script, with the file each compiles to under dist/. */
const CLI_FILES = {
  'db:migrate': 'migrate',
  'db:embed': 'embed',
  import: 'import',
  tenants: 'tenants',
  usage: 'usage',
};

/**
 * How to run one of our CLIs where this process runs: the npm script in a checkout (it runs the
 * TypeScript with tsx), the compiled file in the image, which has dist/ but no src/.
 */
export function cliCommand(script: keyof typeof CLI_FILES, args = '', moduleUrl = import.meta.url): string {
  const compiled = new URL(moduleUrl).pathname.includes('/dist/');
  if (compiled) return `node dist/data/cli/${CLI_FILES[script]}.js${args ? ` ${args}` : ''}`;
  return `npm run ${script}${args ? ` -- ${args}` : ''}`;
}
