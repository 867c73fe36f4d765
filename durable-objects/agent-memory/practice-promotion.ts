import { promotionPlan, type PromotionItem } from "../../src/core/practice/promotion";
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

/** Applies a finished run's diff onto the agent's current library as ONE version (source `practice`). */
export async function promotePractice(library: Library, input: PracticePromotionInput, record: RecordResult<unknown>): Promise<PracticePromotionResult> {
  const current = input.start.flatMap((e) => {
    const row = library.row(e.id);
    return row ? [{ id: row.id, text: row.text, status: row.status, pinned: row.pinned === 1 }] : [];
  });
  const plan = promotionPlan(input.start, input.final, current, input.runId);
  if (plan.operations.length === 0) {
    const none = { version: null, applied: 0, skipped: plan.skipped };
    record(none);
    return none;
  }
  const outcome = (version: number) => ({ version, applied: plan.operations.length, skipped: plan.skipped });
  // The result is recorded in the version's own transaction, so a retried promotion replays it.
  const r = await library.apply(plan.operations, {
    reason: input.reason,
    author: `run:${input.runId}`,
    provenance: { runId: input.runId },
    record: (c) => record(outcome(c.version)),
  });
  return outcome(r.version);
}
