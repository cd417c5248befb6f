import { defineMemorySuite } from './memory.suite.js';
import { openPgliteTestPort } from '../../helpers/db.js';

defineMemorySuite('long-term memory on PGlite', {
  async open() {
    const port = await openPgliteTestPort();
    return { port, close: () => port.close() };
  },
});
