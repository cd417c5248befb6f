/**
 * The embedded database templates the suite builds for its own embedding dimensions
 * (test/global-setup.ts), one per dimension, each named in an environment variable the workers
 * inherit; an app under test finds it through PGLITE_TEMPLATE_DIR.
 */
/** test/helpers/db.ts's ports. */
export const TEST_DIMENSIONS = 64;
/** startHarness and serveConfig (test/helpers/harness.ts). */
export const HARNESS_DIMENSIONS = 8;

export const templateEnvName = (dimensions: number): string => `SWITCHBOARD_TEST_TEMPLATE_${dimensions}`;

/** `{ PGLITE_TEMPLATE_DIR }` for an app with these dimensions, where this run built its template. */
export function templateEnv(dimensions: number): Record<string, string> {
  const dir = process.env[templateEnvName(dimensions)];
  return dir ? { PGLITE_TEMPLATE_DIR: dir } : {};
}
