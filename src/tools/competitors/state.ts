import { z } from 'zod';
import { setToolState, type ThreadState } from '../../contract/thread-state.js';

/** The thread-state key of this tool family. */
export const COMPETITORS_FAMILY = 'competitors';

const fetchedCompetitor = z.object({
  name: z.string(),
  /** Verbatim from the database: the card and the model's context both render from this. */
  description: z.string(),
  fetchedAt: z.string(),
});
export type FetchedCompetitor = z.infer<typeof fetchedCompetitor>;

const competitorState = z.object({ fetched: z.record(z.string(), fetchedCompetitor) });

/**
 * The backgrounds fetched in this thread, by competitor id. Read without writing: a thread
 * that never looked a competitor up keeps no competitor state. State saved by an older
 * build in another shape counts as nothing fetched rather than failing the turn.
 */
export function fetchedCompetitors(state: ThreadState): Record<string, FetchedCompetitor> {
  const parsed = competitorState.safeParse(state.tools[COMPETITORS_FAMILY]);
  return parsed.success ? parsed.data.fetched : {};
}

export function storeFetchedCompetitor(state: ThreadState, key: string, entry: FetchedCompetitor): void {
  setToolState(state, COMPETITORS_FAMILY, { fetched: { ...fetchedCompetitors(state), [key]: entry } });
}
