// Preloaded with NODE_OPTIONS=--import by test/telemetry/shutdown.test.ts: prints one line to
// stderr the first time our code (not a dependency: prom-client loads the API for itself)
// resolves an OpenTelemetry package, so a test can tell whether the process loaded the SDK at
// all. Observes resolution only; changes nothing.
import { registerHooks } from 'node:module';

const seen = new Set();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const m = /^@opentelemetry\/(api|sdk-trace|exporter-trace-otlp-[a-z]+|resources|context-async-hooks)$/.exec(
      specifier,
    );
    if (m && !seen.has(m[1]) && !context.parentURL?.includes('/node_modules/')) {
      seen.add(m[1]);
      process.stderr.write(`otel-import: ${m[1]}\n`);
    }
    return nextResolve(specifier, context);
  },
});
