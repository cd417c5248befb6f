import type { TurnEvent } from '../contract/turn.js';
import type { Logger } from '../telemetry/logger.js';

/**
 * A turn's events as a platform shows them: once `done` has come, the turn has answered and
 * stays answered, so a later `error` is logged at warn and dropped (the user would otherwise
 * read "Something went wrong" under the answer). The agent emits none after `done`
 * (src/agent/agent.ts); this is the consumers' own guard, in case one ever slips through.
 */
export async function* answeredStaysAnswered(
  events: AsyncIterable<TurnEvent>,
  log: Logger,
): AsyncGenerator<TurnEvent, void, undefined> {
  let done = false;
  for await (const event of events) {
    if (event.type === 'done') done = true;
    else if (done && event.type === 'error') {
      log.warn({ code: event.code }, 'a turn event `error` came after `done`; not shown');
      continue;
    }
    yield event;
  }
}
