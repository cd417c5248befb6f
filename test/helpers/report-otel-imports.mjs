// Preloaded with NODE_OPTIONS=--import by test/telemetry/shutdown.test.ts: prints one line to
// stderr the first time an OpenTelemetry SDK or exporter package is resolved, so a test can tell
// whether the process loaded the SDK at all. Observes resolution only; changes nothing.
import { registerHooks } from 'node:module';

const seen = new Set();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const m = /^@opentelemetry\/(sdk-trace|exporter-trace-otlp-[a-z]+|resources|context-async-hooks)$/.exec(specifier);
    if (m && !seen.has(m[1])) {
      seen.add(m[1]);
      process.stderr.write(`otel-import: ${m[1]}\n`);
    }
    return nextResolve(specifier, context);
  },
});
