import { z } from "zod";
import { oneLine } from "../library-block";
import { assessLesson } from "../poison";
import { clipWhen } from "../memory-types";

/** Training-Free GRPO keeps experiences short enough to inject many of them. */
export const MAX_EXPERIENCE_WORDS = 32;

/** One experience of a run's library; its position gives its label (G0, G1, …). */
export interface RunExperience {
  id: string;
  text: string;
  /** The situations the lesson applies to, as the batch update wrote them (searched, never injected). */
  when?: string;
  lineage: LineageEntry[];
  /** The agent's Q-value for a lesson the run started with; lessons the run wrote have none yet. */
  q?: number;
}

/** `provenance: "hindsight"` marks a change learned from a group whose attempts all failed (src/core/practice/hindsight.ts). */
export type LineageEntry =
  | { op: "start" }
  | { op: "add" | "modify"; epoch: number; step: number; provenance?: "hindsight" }
  | { op: "merge"; epoch: number; step: number; from: string[]; provenance?: "hindsight" };

/** What the group-advantage call may propose for one group (labels refer to the step's snapshot). */
export const ProposalSchema = z.object({
  op: z.enum(["add", "modify", "delete", "none"]),
  target: z.string().describe("the label (e.g. G3) for modify or delete; empty for add and none"),
  text: z.string().describe("the new or rewritten experience; empty for delete and none"),
  reason: z.string(),
});
export type Proposal = z.infer<typeof ProposalSchema>;

export const GroupAdvantageSchema = z.object({
  analysis: z.string().describe("what separated the better attempts from the worse ones"),
  operations: z.array(ProposalSchema),
});
export type GroupAdvantage = z.infer<typeof GroupAdvantageSchema>;

/** One operation of the batch update's final plan. */
export const PlanOpSchema = z.object({
  op: z.enum(["add", "modify", "merge", "delete"]),
  targets: z.array(z.string()).describe("labels: none for add, one for modify and delete, two or more for merge"),
  text: z.string().describe("the resulting experience; empty for delete"),
  when: z.string().optional().describe("the situations the experience applies to, in the words an agent would use; empty for delete"),
  reason: z.string(),
});
export type PlanOp = z.infer<typeof PlanOpSchema>;

export const BatchPlanSchema = z.object({
  reasoning: z.string(),
  operations: z.array(PlanOpSchema),
});
export type BatchPlan = z.infer<typeof BatchPlanSchema>;

/** An operation the step could not use, kept with its reason so the step explains itself. */
export interface DroppedOp {
  source: string;
  op: unknown;
  reason: string;
}

export type ResolvedOp =
  | { op: "add"; text: string; when?: string; reason: string }
  | { op: "modify"; id: string; text: string; when?: string; reason: string }
  | { op: "merge"; ids: string[]; text: string; when?: string; reason: string }
  | { op: "delete"; id: string; reason: string };

export interface LibraryChange {
  op: "add" | "modify" | "merge" | "delete";
  id: string;
  before: string | null;
  after: string | null;
  from?: string[];
  reason?: string;
}

export const labelOf = (index: number) => `G${index}`;

const wordCount = (text: string) => text.split(/\s+/).filter(Boolean).length;
const normaliseText = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();

/** Accepts `G3`, `[G3]`, `g3` and `G3.`; anything else is not a label. */
export function parseLabel(raw: string): number | null {
  const m = /^\s*\[?\s*G(\d{1,4})\s*\]?\.?\s*$/i.exec(raw);
  return m ? Number(m[1]) : null;
}

/** A plan's `when`, on one line and within bounds; none when the learner wrote nothing. */
function checkWhen(when: string | undefined): { when?: string } {
  const w = clipWhen(when);
  return w ? { when: w } : {};
}

function checkText(text: string): { ok: true; text: string } | { ok: false; reason: string } {
  const t = oneLine(text);
  if (!t) return { ok: false, reason: "empty experience" };
  const words = wordCount(t);
  if (words > MAX_EXPERIENCE_WORDS) return { ok: false, reason: `experience has ${words} words (at most ${MAX_EXPERIENCE_WORDS})` };
  return { ok: true, text: t };
}

/**
 * Checks a group's proposals against the step's snapshot: at most `maxOps` of them, labels that
 * exist, texts within limits. `none` is dropped silently; everything else that is unusable is
 * returned with its reason.
 */
export function validateProposals(
  proposals: readonly Proposal[],
  snapshot: readonly RunExperience[],
  maxOps: number,
  source: string,
): { kept: Proposal[]; dropped: DroppedOp[] } {
  const kept: Proposal[] = [];
  const dropped: DroppedOp[] = [];
  for (const p of proposals) {
    if (p.op === "none") continue;
    if (kept.length >= maxOps) {
      dropped.push({ source, op: p, reason: `more than ${maxOps} operations for one group` });
      continue;
    }
    if (p.op === "modify" || p.op === "delete") {
      const i = parseLabel(p.target);
      if (i === null || i >= snapshot.length) {
        dropped.push({ source, op: p, reason: `unknown label '${p.target}'` });
        continue;
      }
    }
    if (p.op !== "delete") {
      const t = checkText(p.text);
      if (!t.ok) {
        dropped.push({ source, op: p, reason: t.reason });
        continue;
      }
      kept.push({ ...p, text: t.text, target: p.op === "add" ? "" : p.target });
      continue;
    }
    kept.push({ ...p, text: "" });
  }
  return { kept, dropped };
}

/**
 * Keeps only the operations whose texts are safe to inject: the cheap filter (src/core/poison.ts)
 * and the LLM safety review must both pass, and a missing review counts as a failure. Deletes
 * write no text and always pass.
 */
export function screenPlan(
  plan: readonly PlanOp[],
  review: readonly ({ safe: boolean; category: string; reason: string } | null)[] | null,
): { ops: PlanOp[]; dropped: DroppedOp[] } {
  const ops: PlanOp[] = [];
  const dropped: DroppedOp[] = [];
  plan.forEach((op, i) => {
    if (op.op === "delete" || !op.text.trim()) return void ops.push(op);
    const filter = assessLesson({ text: op.text, when: op.when });
    if (filter.quarantined)
      return void dropped.push({ source: "safety", op, reason: `blocked by the content filter: ${filter.reasons.join(", ")}` });
    const v = review?.[i];
    if (!v) return void dropped.push({ source: "safety", op, reason: "not safety-reviewed" });
    if (!v.safe) return void dropped.push({ source: "safety", op, reason: `failed the safety review (${v.category}): ${v.reason}` });
    ops.push(op);
  });
  return { ops, dropped };
}

/**
 * Turns the batch update's plan into operations on ids. Each experience may be touched by one
 * operation only; duplicates of existing or already-added texts are dropped.
 */
export function resolvePlan(plan: readonly PlanOp[], snapshot: readonly RunExperience[]): { ops: ResolvedOp[]; dropped: DroppedOp[] } {
  const ops: ResolvedOp[] = [];
  const dropped: DroppedOp[] = [];
  const used = new Set<string>();
  const texts = new Set(snapshot.map((e) => normaliseText(e.text)));
  const drop = (op: PlanOp, reason: string) => dropped.push({ source: "batch", op, reason });

  for (const op of plan) {
    const idx = op.targets.map(parseLabel);
    const bad = op.targets.filter((_, k) => idx[k] === null || idx[k]! >= snapshot.length);
    if (bad.length) {
      drop(op, `unknown label${bad.length > 1 ? "s" : ""} ${bad.map((b) => `'${b}'`).join(", ")}`);
      continue;
    }
    const ids = [...new Set(idx.map((i) => snapshot[i!]!.id))];
    const taken = ids.filter((id) => used.has(id));
    if (taken.length) {
      drop(op, `${taken.length === 1 ? "an experience" : "experiences"} already changed by an earlier operation of this plan`);
      continue;
    }
    const need = op.op === "add" ? [0, 0] : op.op === "merge" ? [2, Infinity] : [1, 1];
    if (ids.length < need[0]! || ids.length > need[1]!) {
      drop(
        op,
        op.op === "add"
          ? "add takes no target"
          : op.op === "merge"
            ? "merge needs two or more distinct targets"
            : `${op.op} takes exactly one target`,
      );
      continue;
    }
    if (op.op === "delete") {
      ops.push({ op: "delete", id: ids[0]!, reason: op.reason });
      used.add(ids[0]!);
      continue;
    }
    const t = checkText(op.text);
    if (!t.ok) {
      drop(op, t.reason);
      continue;
    }
    const norm = normaliseText(t.text);
    if (op.op === "add" && texts.has(norm)) {
      drop(op, "duplicate of an existing experience");
      continue;
    }
    texts.add(norm);
    ids.forEach((id) => used.add(id));
    const when = checkWhen(op.when);
    if (op.op === "add") ops.push({ op: "add", text: t.text, ...when, reason: op.reason });
    else if (op.op === "modify") ops.push({ op: "modify", id: ids[0]!, text: t.text, ...when, reason: op.reason });
    else ops.push({ op: "merge", ids, text: t.text, ...when, reason: op.reason });
  }
  return { ops, dropped };
}

/**
 * Applies resolved operations to the run's library. Ids stay stable: a modified experience keeps
 * its id and place, a merge lives on under its first target's id, an add is appended with the id
 * `newId(i)` gives (deterministic, so a resumed run names things exactly as an uninterrupted one).
 */
export function applyPlan(
  library: readonly RunExperience[],
  ops: readonly ResolvedOp[],
  at: { epoch: number; step: number },
  newId: (i: number) => string,
): { library: RunExperience[]; changes: LibraryChange[] } {
  const byId = new Map(library.map((e) => [e.id, e]));
  const next = library.map((e) => ({ ...e, lineage: e.lineage.slice() }));
  const index = new Map(next.map((e, i) => [e.id, i]));
  const removed = new Set<string>();
  const changes: LibraryChange[] = [];
  let added = 0;
  for (const op of ops) {
    if (op.op === "add") {
      const id = newId(added++);
      next.push({ id, text: op.text, ...(op.when ? { when: op.when } : {}), lineage: [{ op: "add", ...at }] });
      changes.push({ op: "add", id, before: null, after: op.text });
    } else if (op.op === "modify") {
      const e = next[index.get(op.id)!]!;
      changes.push({ op: "modify", id: op.id, before: e.text, after: op.text });
      e.text = op.text;
      if (op.when) e.when = op.when;
      e.lineage.push({ op: "modify", ...at });
    } else if (op.op === "merge") {
      const [keep, ...rest] = op.ids as [string, ...string[]];
      const e = next[index.get(keep)!]!;
      changes.push({ op: "merge", id: keep, before: e.text, after: op.text, from: op.ids.slice() });
      e.text = op.text;
      if (op.when) e.when = op.when;
      e.lineage.push({ op: "merge", ...at, from: op.ids.slice() });
      for (const id of rest) {
        removed.add(id);
        changes.push({ op: "delete", id, before: byId.get(id)!.text, after: null });
      }
    } else {
      removed.add(op.id);
      changes.push({ op: "delete", id: op.id, before: byId.get(op.id)!.text, after: null });
    }
  }
  return { library: next.filter((e) => !removed.has(e.id)), changes };
}

/** When the lesson was last written: start-library lessons never, so they sort first among equals. */
const lastTouched = (e: RunExperience) => {
  const last = e.lineage[e.lineage.length - 1];
  return !last || last.op === "start" ? -1 : last.epoch * 1_000_000 + last.step;
};

/**
 * Holds the library to `cap` lessons by removing the lowest-utility ones: the agent's Q where it
 * has one, `priorQ` (the agent's starting Q) for lessons the run wrote; among equals the lesson
 * written longest ago goes first, then the earlier one in the library.
 */
export function enforceCap(
  library: readonly RunExperience[],
  cap: number,
  priorQ: number,
): { library: RunExperience[]; evicted: RunExperience[] } {
  if (library.length <= cap) return { library: library.slice(), evicted: [] };
  const order = library.map((e, i) => ({ e, i, u: e.q ?? priorQ, t: lastTouched(e) })).sort((a, b) => a.u - b.u || a.t - b.t || a.i - b.i);
  const evicted = new Set(order.slice(0, library.length - cap).map((x) => x.e.id));
  return { library: library.filter((e) => !evicted.has(e.id)), evicted: library.filter((e) => evicted.has(e.id)) };
}

/** Only groups whose rewards differ teach anything: 0 < mean < 1 and a spread above zero. */
export function groupHasContrast(rewards: readonly number[]): boolean {
  if (rewards.length < 2) return false;
  const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
  if (!(mean > 0 && mean < 1)) return false;
  return rewards.some((r) => Math.abs(r - rewards[0]!) > 1e-9);
}
