/**
 * A vitest setup file: after every test, every fake OpenAI still open must have been called
 * exactly as scripted (no call past the script, no step left unused). See test/fakes/openai-server.ts.
 */
import { afterEach } from 'vitest';
import { verifyOpenFakes } from '../fakes/openai-server.js';

afterEach(() => {
  verifyOpenFakes();
});
