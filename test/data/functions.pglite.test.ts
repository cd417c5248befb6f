import { openPgliteTestPort } from '../helpers/db.js';
import { defineFunctionSuite } from './suite.js';

defineFunctionSuite('SQL functions on PGlite (embedded, with pgvector)', {
  async open() {
    const port = await openPgliteTestPort();
    return { port, close: () => port.close() };
  },
});
