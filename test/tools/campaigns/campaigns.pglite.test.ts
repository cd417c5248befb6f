import { openPgliteTestPort } from '../../helpers/db.js';
import { defineCampaignSuite } from './suite.js';

defineCampaignSuite('campaign tools on PGlite (embedded, with pgvector)', {
  async open() {
    const port = await openPgliteTestPort();
    return { port, close: () => port.close() };
  },
});
