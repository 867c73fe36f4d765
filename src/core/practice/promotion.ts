import type { LibraryOperation } from "../memory-types";

export interface PromotionItem {
  id: string;
  text: string;
  /** How the run learned a lesson it wrote (src/core/practice/hindsight.ts); kept in the new experience's provenance. */
  origin?: "contrast" | "hindsight";
  /** The situations the lesson applies to, when the run's learner wrote them. */
  when?: string;
}

export interface CurrentItem {
  id: string;
  text: string;
  status: string;
  pinned: boolean;
}

export interface PromotionPlan {
  operations: LibraryOperation[];
  skipped: { id: string; op: string; reason: string }[];
}

/**
 * What a finished run changes in the agent's library: the diff between the run's starting and
 * final library, replayed onto the agent's library as it is now, so that lessons learned live in
 * the meantime survive. A change to an experience that was edited, archived or removed since the
 * run started is skipped and reported instead of overwriting someone else's work; pinned
 * experiences are never rewritten or archived by practice. Removals archive (they can be rolled
 * back and keep the learned Q).
 */
export function promotionPlan(
  start: readonly PromotionItem[],
  final: readonly PromotionItem[],
  current: readonly CurrentItem[],
  runId: string,
): PromotionPlan {
  const startById = new Map(start.map((e) => [e.id, e.text]));
  const startWhen = new Map(start.map((e) => [e.id, e.when]));
  const finalIds = new Set(final.map((e) => e.id));
  const now = new Map(current.map((e) => [e.id, e]));
  const operations: LibraryOperation[] = [];
  const skipped: PromotionPlan["skipped"] = [];

  const unchangedSinceStart = (id: string, op: string): boolean => {
    const cur = now.get(id);
    const reason =
      !cur || cur.status === "archived"
        ? "no longer in the agent's library"
        : cur.text !== startById.get(id)
          ? "changed in the agent's library since the run started"
          : cur.status !== "active"
            ? `is ${cur.status} in the agent's library`
            : cur.pinned
              ? "pinned in the agent's library"
              : null;
    if (reason) skipped.push({ id, op, reason });
    return reason === null;
  };

  for (const e of final) {
    const before = startById.get(e.id);
    if (before === undefined) {
      operations.push({
        op: "create",
        experience: {
          text: e.text,
          ...(e.when ? { when: e.when } : {}),
          source: "practice",
          provenance: { runId, runItemId: e.id, ...(e.origin ? { origin: e.origin } : {}) },
        },
      });
    } else if ((before !== e.text || (e.when && e.when !== startWhen.get(e.id))) && unchangedSinceStart(e.id, "modify")) {
      operations.push({ op: "update", id: e.id, patch: { text: e.text, ...(e.when ? { when: e.when } : {}) } });
    }
  }
  for (const e of start) {
    if (!finalIds.has(e.id) && unchangedSinceStart(e.id, "delete")) operations.push({ op: "archive", id: e.id });
  }
  return { operations, skipped };
}

/**
 * The reason of a promotion the promotion rule let through that still wrote no version. The cause
 * comes first and the rule's verdict after it as such: "gate passed" in front of "not promoted"
 * reads as a contradiction.
 */
export const unpromotedReason = (cause: string, verdict: string): string =>
  `${cause}, so nothing was promoted (the promotion rule had let it through: ${verdict})`;
