import type { ActionResult, AgentExtension, TurnScope } from '../../contract/extension.js';
import type { Reply } from '../../reply/model.js';
import { CLEAR_ACTION, MORE_ACTION, PAGE_SIZE, campaignPage } from './cards.js';
import { describeFilters, isEmpty } from './filters.js';
import { readCampaignState, writeCampaignState } from './state.js';

/**
 * The campaign buttons, answered from the thread state without a model call:
 * `campaigns.more` pages through the last result set, `campaigns.clear` drops the
 * thread's active filters. (Suggestion buttons use the built-in `suggest.N` action.)
 */
export function campaignActions(): AgentExtension {
  return { actions: { campaigns: handleCampaignAction } };
}

async function handleCampaignAction(action: { id: string; value?: string }, scope: TurnScope): Promise<ActionResult> {
  if (action.id === MORE_ACTION) return { reply: showMore(action.value ?? '', scope) };
  if (action.id === CLEAR_ACTION) return { reply: clearFilters(scope) };
  scope.log.warn({ action: action.id }, 'unknown campaign action');
  return { reply: { text: 'That button is no longer available. Ask me again in the thread.', blocks: [] } };
}

function showMore(value: string, scope: TurnScope): Reply {
  const state = readCampaignState(scope.state);
  const match = /^([\w-]{1,40}):(\d{1,4})$/.exec(value);
  const last = state.last;
  if (!match || !last || last.id !== match[1]) {
    scope.log.debug({ action: MORE_ACTION, stale: true }, 'campaign page');
    return {
      text: 'Those results are from an earlier search I no longer have. Ask again and I will search afresh.',
      blocks: [],
    };
  }
  const total = last.campaigns.length;
  const offset = Number(match[2]);
  if (offset >= total) return { text: `That was all ${total} campaigns.`, blocks: [] };
  const end = Math.min(offset + PAGE_SIZE, total);
  scope.log.debug({ action: MORE_ACTION, offset, total }, 'campaign page');
  return {
    text: `Campaigns ${offset + 1}–${end} of ${total}.`,
    blocks: campaignPage({
      campaigns: last.campaigns,
      offset,
      resultId: last.id,
      filterLabels: last.filterLabels,
      canClear: !isEmpty(state.filters),
    }),
  };
}

function clearFilters(scope: TurnScope): Reply {
  const state = readCampaignState(scope.state);
  if (isEmpty(state.filters)) return { text: 'No campaign filters are active in this thread.', blocks: [] };
  const labels = describeFilters(state.filters, scope.now());
  writeCampaignState(scope.state, { ...state, filters: {} });
  scope.log.debug({ action: CLEAR_ACTION, cleared: labels.length }, 'campaign filters cleared');
  return {
    text: `Cleared the campaign filters (${labels.join(' · ')}). New searches cover all campaigns.`,
    blocks: [],
  };
}
