import { existsSync } from 'node:fs';
import { runEval } from './cli.js';

/** `npm run eval`: the eval suite against the configured model (evals/README.md). */
if (existsSync('.env')) process.loadEnvFile('.env');
runEval(process.argv.slice(2), {
  env: process.env,
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`The eval run stopped: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
