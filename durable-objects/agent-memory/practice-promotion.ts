import { promotionPlan, type PromotionItem, type PromotionPlan } from "../../src/core/practice/promotion";
import type { Library } from "./library";
import type { RecordResult } from "./idempotency";

export interface PracticePromotionInput {
  runId: string;
  reason: string;
  start: PromotionItem[];
  final: PromotionItem[];
}

export interface PracticePromotionResult {
  version: number | null;
  applied: number;
  skipped: { id: string; op: string; reason: string }[];
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
 */
export async function promotePractice(library: Library, input: PracticePromotionInput, record: RecordResult<unknown>): Promise<PracticePromotionResult> {
  const mark = promotionMark(input.runId);
  let plan: PromotionPlan = { operations: [], skipped: [] };
  let prior: { version: number; changes: number } | null = null;
  const fresh = () => {
    prior = library.versionFor(mark);
    if (prior) return [];
    const current = input.start.flatMap((e) => {
      const row = library.row(e.id);
      return row ? [{ id: row.id, text: row.text, status: row.status, pinned: row.pinned === 1 }] : [];
    });
    plan = promotionPlan(input.start, input.final, current, input.runId);
    return library.resolve(plan.operations, { runId: input.runId });
  };
  const outcome = (version: number | null): PracticePromotionResult => {
    // What the first attempt skipped was kept only with its pruned key; its version and size remain.
    if (prior) return { version: prior.version, applied: prior.changes, skipped: [] };
    return { version, applied: version === null ? 0 : plan.operations.length, skipped: plan.skipped };
  };
  // The result is recorded in the version's own transaction, so a retried promotion replays it.
  const r = await library.commit(fresh, input.reason, `run:${input.runId}`, (c) => record(outcome(c.unchanged ? null : c.version)), { jobId: mark });
  return outcome(r.unchanged ? null : r.version);
}
