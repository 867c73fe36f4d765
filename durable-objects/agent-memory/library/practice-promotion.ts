import { promotionPlan, type PromotionItem, type PromotionPlan } from "../../../src/core/practice/promotion";
import type { Library } from "./library";
import type { RecordResult } from "../storage/idempotency";
import { snapshotOf } from "../storage/rows";
import { PROBATION } from "../../../src/core/probation";

export interface PracticePromotionInput {
  /** The agent's incarnation when the run was created: a later agent of the same id refuses the promotion. */
  incarnation?: string;
  runId: string;
  reason: string;
  start: PromotionItem[];
  final: PromotionItem[];
}

export interface PracticePromotionResult {
  version: number | null;
  applied: number;
  skipped: { id: string; op: string; reason: string }[];
  /** Lessons on probation the run kept, released by this version. */
  released: string[];
}

/** What marks a run's promotion in the library's history (library_versions.job_id). */
const promotionMark = (runId: string) => `practice:${runId}`;

/**
 * Applies a finished run's diff onto the agent's current library as ONE version (source
 * `practice`). The plan, skip checks included, is made again inside the version's transaction
 * against fresh rows (the commit re-runs it after the embedding await), so a user's edit made
 * while the promotion was embedding is skipped, never overwritten. The version carries the run's
 * mark, and the plan looks for it inside the same transaction: a promotion retried after its
 * idempotency key was pruned finds the version it wrote and changes nothing.
 *
 * The run's gate passed with its final library, so a lesson on probation that the run kept (as it
 * was, or as the run rewrote it) has earned trust: it leaves probation in the same version, whose
 * reason names it. A lesson changed in the agent's library since the run started is not the one
 * the run tested and stays on probation.
 */
export async function promotePractice(
  library: Library,
  input: PracticePromotionInput,
  record: RecordResult<unknown>,
): Promise<PracticePromotionResult> {
  const mark = promotionMark(input.runId);
  let plan: PromotionPlan = { operations: [], skipped: [] };
  let prior: { version: number; changes: number } | null = null;
  let released: string[] = [];
  const startText = new Map(input.start.map((e) => [e.id, e.text]));
  const kept = input.final.filter((e) => startText.has(e.id)).map((e) => e.id);
  const fresh = () => {
    prior = library.versionFor(mark);
    if (prior) return [];
    const current = input.start.flatMap((e) => {
      const row = library.row(e.id);
      return row ? [{ id: row.id, text: row.text, status: row.status, pinned: row.pinned === 1 }] : [];
    });
    plan = promotionPlan(input.start, input.final, current, input.runId);
    const intents = library.resolve(plan.operations, { runId: input.runId });
    const byId = new Map(intents.map((i) => [i.id, i]));
    released = [];
    for (const id of kept) {
      const intent = byId.get(id);
      // The run's own rewrite passed the gate: it does not go on probation as other rewrites do.
      if (intent?.kind === "put") intent.trusted = true;
      const row = library.row(id);
      if (!row || row.probation === PROBATION.trusted || row.status !== "active" || row.text !== startText.get(id)) continue;
      released.push(id);
      if (!intent) intents.push({ kind: "put", id, after: snapshotOf(row), embedText: null, trusted: true });
    }
    return intents;
  };
  const reason = () => (released.length ? `${input.reason}; released from probation: ${released.join(", ")}` : input.reason);
  const outcome = (version: number | null): PracticePromotionResult => {
    // What the first attempt skipped and released was kept only with its pruned key; its version and size remain.
    if (prior) return { version: prior.version, applied: prior.changes, skipped: [], released: [] };
    return { version, applied: version === null ? 0 : plan.operations.length, skipped: plan.skipped, released };
  };
  // The result is recorded in the version's own transaction, so a retried promotion replays it.
  const r = await library.commit(fresh, reason, `run:${input.runId}`, (c) => record(outcome(c.unchanged ? null : c.version)), {
    jobId: mark,
  });
  return outcome(r.unchanged ? null : r.version);
}
