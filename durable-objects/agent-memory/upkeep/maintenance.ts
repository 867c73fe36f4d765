import type { MemoryContext } from "../storage/context";
import type { Stores } from "../object/startup";
import { pruneDueAt, pruneLogs, sweep } from "./forgetting";
import { anyLessonWithoutWhen } from "./when-backfill";

/**
 * An agent that was called is swept within this, as the 5-minute cron once swept every agent: what
 * the calls changed (capacity, lowered Q, ended episodes) is looked at soon after.
 */
export const ACTIVE_SWEEP_MS = 5 * 60_000;
/** Vectorize writes it refused are retried this often while any wait. */
const REPUBLISH_RETRY_MS = 60_000;
/** No sweep follows another sooner: a due time that is already past (a batch left work) waits this long. */
const MIN_GAP_MS = 60_000;

/** Where the next sweep's due time is kept (key-value storage, beside the agent's state). */
export const SWEEP_DUE_KEY = "praxis:sweep-due";
/** The end time of the newest ended episode a remedial check was asked for. */
const REMEDIAL_SEEN_KEY = "praxis:remedial-seen";

export type SweepResult = Awaited<ReturnType<typeof runSweep>>;

/**
 * The agent's own upkeep: open episodes past their time-to-live end as timeouts, what Vectorize
 * refused is published again, pending entries are sent for review, faded and surplus lessons are
 * archived, history past retention (and the read model's change log past its bound) is pruned, and
 * subscriptions to libraries deleted since end.
 */
export async function runSweep(mem: MemoryContext, rooms: Stores, at: number, episodeTtlMs: number) {
  const episodes = await rooms.episodes.endStale(at, episodeTtlMs);
  await rooms.trials.settle();
  await mem.vectors.republish();
  if (awaitingReview(mem, rooms)) await mem.requestReview();
  if (mem.reviewAvailable() && anyLessonWithoutWhen(mem)) await mem.requestJob("lesson.when");
  rooms.readModel.trimLog();
  return {
    ...(await sweep(mem, rooms.library, at)),
    episodesTimedOut: episodes.timedOut,
    episodesFailed: episodes.failed,
    pruned: await pruneLogs(mem, rooms.cases, at),
    retiredSecrets: rooms.retrieval.secrets.prune(at),
    unsubscribed: await rooms.subscriptions.endGone(),
  };
}

/** Entries and learned phrases that wait for the LLM safety review, when one is configured. */
function awaitingReview(mem: MemoryContext, rooms: Stores): boolean {
  return mem.reviewAvailable() && rooms.quarantine.countPending() + rooms.retrieval.usage.countPendingPhrases() > 0;
}

/**
 * When the agent next has upkeep due if nobody calls it: the first open episode's time-to-live, the
 * first lesson to fade, the first record past retention, a retry of what Vectorize refused or of a
 * pending review. Null when nothing ever will be: the object then sleeps until it is called.
 */
export function nextSweepDue(mem: MemoryContext, rooms: Stores, swept: SweepResult, now: number, episodeTtlMs: number): number | null {
  const openSince = mem.sql.exec<{ t: number | null }>("SELECT min(created_at) AS t FROM episodes WHERE status = 'open'").one().t;
  const dues = [
    openSince === null ? null : openSince + episodeTtlMs,
    swept.nextFadeAt,
    pruneDueAt(mem),
    mem.vectors.hasUnpublished() ? now + REPUBLISH_RETRY_MS : null,
    awaitingReview(mem, rooms) ? now + ACTIVE_SWEEP_MS : null,
  ].filter((t): t is number => t !== null);
  return dues.length ? Math.max(now + MIN_GAP_MS, Math.min(...dues)) : null;
}

/**
 * The end time of the newest ended episode when it ended after the last remedial check was asked
 * for, else null. Remedial practice looks at ended episodes only, so an agent whose episodes did not
 * change has nothing new to check; `remedialCheckAsked` records the ask once it is sent.
 */
export function remedialCheckDue(mem: MemoryContext): number | null {
  const newest = mem.sql.exec<{ t: number | null }>("SELECT max(ended_at) AS t FROM episodes WHERE status = 'ended'").one().t;
  return newest !== null && newest > (mem.storage.kv.get<number>(REMEDIAL_SEEN_KEY) ?? 0) ? newest : null;
}

export function remedialCheckAsked(mem: MemoryContext, newest: number): void {
  mem.storage.kv.put(REMEDIAL_SEEN_KEY, newest);
}

/**
 * The object's alarm, shared by its two clocks: the next sweep (kept in storage) and the next chunk
 * of a Vectorize backfill (the vector store knows). The cron no longer calls agents: an agent with
 * nothing due has no alarm and stays asleep.
 */
export class UpkeepAlarm {
  /** The alarm as last set by this instance; undefined until read from storage. */
  private alarmAt: number | null | undefined;
  /**
   * Calls this instance has seen. A call that ends while a sweep is under way finds that sweep due
   * and plans nothing; the sweep, when it plans next, sees the count moved and keeps its promise.
   */
  calls = 0;
  /** After failed upkeep nothing is tried before this, whatever falls due (kept in memory: a restart tries at once). */
  private notBefore = 0;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly backfillDue: () => number | null,
  ) {}

  /** The alarm fired: storage holds none until it is set again. */
  fired(): void {
    this.alarmAt = null;
  }

  sweepDue(): number | null {
    return this.storage.kv.get<number>(SWEEP_DUE_KEY) ?? null;
  }

  /** After a call: its changes are swept within ACTIVE_SWEEP_MS. Costs one key read when a sweep is due by then. */
  async touched(now: number): Promise<void> {
    this.calls++;
    const due = this.sweepDue();
    if (due !== null && due <= now + ACTIVE_SWEEP_MS) return;
    await this.planSweep(now + ACTIVE_SWEEP_MS);
  }

  async planSweep(at: number | null): Promise<void> {
    if (at === null) this.storage.kv.delete(SWEEP_DUE_KEY);
    else this.storage.kv.put(SWEEP_DUE_KEY, at);
    await this.arm();
  }

  /** After a failure: upkeep (the sweep and a backfill step alike) is tried again at `at` (the caller arms). */
  planLater(at: number): void {
    this.storage.kv.put(SWEEP_DUE_KEY, at);
    this.notBefore = at;
  }

  /** Sets the alarm to the earlier clock, or clears it when neither has anything due. */
  async arm(): Promise<void> {
    const dues = [this.sweepDue(), this.backfillDue()].filter((t): t is number => t !== null);
    // A backfill step is due "now" while it has chunks left: after a failure that would fire at once, forever.
    const at = dues.length ? Math.max(this.notBefore, Math.min(...dues)) : null;
    if (this.alarmAt === undefined) this.alarmAt = await this.storage.getAlarm();
    if (at === this.alarmAt) return;
    if (at === null) await this.storage.deleteAlarm();
    else await this.storage.setAlarm(at);
    this.alarmAt = at;
  }
}
