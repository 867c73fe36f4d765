import type { MemoryContext } from "./context";
import type { Rooms } from "./startup";
import { pruneLogs, sweep } from "./forgetting";

/**
 * The agent's own upkeep: open episodes past their time-to-live end as timeouts, what Vectorize
 * refused is published again, pending entries are sent for review, faded and surplus lessons are
 * archived, and history past retention is pruned.
 */
export async function runSweep(mem: MemoryContext, rooms: Rooms, at: number, episodeTtlMs: number) {
  const episodes = await rooms.episodes.endStale(at, episodeTtlMs);
  await mem.vectors.republish();
  if (mem.reviewAvailable() && rooms.quarantine.countPending() > 0) await mem.requestReview();
  return {
    ...(await sweep(mem, rooms.library, at)),
    episodesTimedOut: episodes.timedOut,
    episodesFailed: episodes.failed,
    pruned: await pruneLogs(mem, rooms.cases, at),
  };
}
