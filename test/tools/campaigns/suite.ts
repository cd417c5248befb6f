import { afterAll, beforeAll, describe } from 'vitest';
import { defineAggregationTests } from './aggregate.suite.js';
import { defineSearchTests } from './search.suite.js';
import { openWorld, type CampaignTarget, type CampaignWorld } from './setup.js';
import { defineThreadTests } from './thread.suite.js';

/** The campaign tools end to end (scripted model, real SQL), on one database target. */
export function defineCampaignSuite(label: string, target: CampaignTarget): void {
  describe(label, () => {
    let world: CampaignWorld;
    beforeAll(async () => {
      world = await openWorld(target);
    });
    afterAll(async () => {
      await world?.close();
    });
    describe('search tools', () => defineSearchTests(() => world));
    describe('thread memory and buttons', () => defineThreadTests(() => world));
    describe('aggregation', () => defineAggregationTests(() => world));
  });
}
