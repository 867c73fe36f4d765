import { z } from "zod";
import { quotedLabels } from "../library-block";
import {
  labelOf,
  parseLabel,
  ProposalSchema,
  validateProposals,
  type DroppedOp,
  type LineageEntry,
  type Proposal,
  type RunExperience,
} from "./plan";
import { seededRandom, shuffled } from "./rng";

/**
 * Hindsight: what practice learns from a group whose attempts all failed. Training-Free GRPO keeps
 * only groups whose rewards differ, so a task family the agent never solves (or a stored lesson
 * that makes every attempt fail) teaches nothing. When such a group's task has a reference answer
 * (or a verifier that explained its verdicts), one learner call compares the failed attempts with
 * it and proposes at most one lesson, which then competes in the step's batch update like any
 * other proposal. Pure rules here; the learner call is src/practice/hindsight.ts.
 */

/** Where a proposal, a plan operation or a library change came from: a group whose rewards differed, or hindsight. */
export const ProvenanceKindSchema = z.enum(["contrast", "hindsight"]);
export type ProvenanceKind = z.infer<typeof ProvenanceKindSchema>;

/** What the hindsight call answers: its diagnosis and at most one library operation. */
export const HindsightLessonSchema = z.object({
  diagnosis: z.string().describe("what the failed attempts did, compared with the reference, and the general mistake behind it"),
  operation: ProposalSchema.describe("one operation: add a lesson, modify or delete a suspect lesson, or none"),
});
export type HindsightLesson = z.infer<typeof HindsightLessonSchema>;

/** A rollout counts as failed below this reward; a group is all-wrong when every rollout failed. */
export const FAILED_BELOW = 0.5;

/** One hindsight call per this many tasks of a step, unless the run sets `hindsightPerStep`. */
export const TASKS_PER_HINDSIGHT_CALL = 4;

/**
 * The most hindsight calls a step makes: the run's `hindsightPerStep`, else one per four tasks (at
 * least one). A run whose stored configuration predates hindsight has no `hindsight` field and keeps
 * the behaviour it started with.
 */
export function hindsightCap(cfg: { hindsight?: boolean; hindsightPerStep?: number | undefined }, stepTasks: number): number {
  if (cfg.hindsight !== true) return 0;
  return cfg.hindsightPerStep ?? Math.max(1, Math.ceil(stepTasks / TASKS_PER_HINDSIGHT_CALL));
}

export interface HindsightCandidate {
  task: number;
  rewards: readonly number[];
  /** Rollouts that produced an answer (a rollout that errored has nothing to compare). */
  answered: number;
  /** Whether the learner may see a reference answer or a verifier's explanation for this task. */
  hasSignal: boolean;
  /** Whether some failed attempt cited a stored lesson: repairing it goes first under the cap. */
  citesLesson: boolean;
}

/** A group hindsight can learn from: kept groups already teach, and without a reference there is nothing to compare with. */
export function hindsightEligible(c: HindsightCandidate): boolean {
  return c.rewards.length > 0 && c.rewards.every((r) => r < FAILED_BELOW) && c.answered > 0 && c.hasSignal;
}

/**
 * Which eligible groups get a hindsight call under the cap: groups whose attempts cited a stored
 * lesson first (a lesson that may be misleading them), then a seeded order, so a resumed step
 * picks exactly what an uninterrupted one would.
 */
export function pickHindsight(
  candidates: readonly HindsightCandidate[],
  cap: number,
  seed: number,
): { picked: number[]; overCap: number[] } {
  const eligible = candidates.filter(hindsightEligible);
  const order = shuffled(eligible, seededRandom(seed)).sort((a, b) => Number(b.citesLesson) - Number(a.citesLesson));
  return {
    picked: order
      .slice(0, cap)
      .map((c) => c.task)
      .sort((a, b) => a - b),
    overCap: order
      .slice(cap)
      .map((c) => c.task)
      .sort((a, b) => a - b),
  };
}

/** The step's seed for choosing hindsight groups: the run's seed mixed with the step's place. */
export const hindsightSeed = (seed: number, epoch: number, step: number) =>
  (Math.imul(seed ^ 0x5bd1e995, 0x27d4eb2d) + Math.imul(epoch + 1, 0x165667b1) + step) >>> 0;

/**
 * The labels the failed attempts cited (the policy is asked to name the lessons it used). When
 * they cite none, every lesson they were shown is a suspect: in practice the whole library is
 * injected, so each one was retrieved for the group.
 */
export function suspectLabels(trajectories: readonly string[], librarySize: number): string[] {
  const cited = citedLabels(trajectories, librarySize);
  return cited.length ? cited : Array.from({ length: librarySize }, (_, i) => labelOf(i));
}

/** The labels of stored lessons the attempts cited, in library order. */
export function citedLabels(trajectories: readonly string[], librarySize: number): string[] {
  const cited = new Set(trajectories.flatMap(quotedLabels).filter((l) => (parseLabel(l) ?? librarySize) < librarySize));
  return [...cited].sort((a, b) => parseLabel(a)! - parseLabel(b)!);
}

// ---------------------------------------------------------------- leakage

/**
 * A reference this short (normalised) is matched as whole tokens only: "4" must not refuse every
 * lesson with a 4 in it, only one that states 4 as a word of its own. Longer references are
 * matched anywhere, since a long answer embedded in other text is still the answer. A reference
 * that is a short word is refused only where the lesson gives it as an answer (see below).
 */
export const SHORT_REFERENCE_CHARS = 8;

const normalise = (text: string) =>
  text
    .normalize("NFKC")
    .toLowerCase()
    // Thousands separators: "1,000" and "1000" are the same answer.
    .replace(/(\d),(?=\d{3}\b)/g, "$1")
    .replace(/\s+/g, " ")
    .trim();

const tokens = (text: string) => text.match(/[\p{L}\p{N}]+(?:[.,][\p{N}]+)*/gu) ?? [];

/** Whether `lesson` states `reference` verbatim (case and whitespace aside; short references as whole tokens). */
export function quotesReference(lesson: string, reference: string | null): boolean {
  if (!reference) return false;
  const ref = normalise(reference).replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
  if (!ref) return false;
  const text = normalise(lesson);
  if (ref.length >= SHORT_REFERENCE_CHARS) return text.includes(ref);
  const want = tokens(ref);
  if (!want.length) return text.includes(ref);
  const have = tokens(text);
  // A reference that is a short word ("a", "no", "yes", an option letter) is also an ordinary word
  // of advice: it leaks only where the lesson gives it as an answer, after a cue or in quotes.
  const word = want.length === 1 && /^\p{L}{1,3}$/u.test(want[0]!);
  for (let i = 0; i + want.length <= have.length; i++) {
    if (!want.every((w, k) => have[i + k] === w)) continue;
    if (!word || ANSWER_CUES.has(have[i - 1] ?? "") || quoted(text, want[0]!)) return true;
  }
  return false;
}

const ANSWER_CUES = new Set([
  "answer",
  "answers",
  "is",
  "was",
  "be",
  "choose",
  "pick",
  "select",
  "option",
  "choice",
  "reply",
  "respond",
  "say",
  "output",
  "write",
  "return",
]);

const quoted = (text: string, w: string) => new RegExp(`["'“‘(\\[*\`]${w}["'”’)\\]*\`]`, "u").test(text);

// ---------------------------------------------------------------- checking a proposal

export interface HindsightCheck {
  kept: Proposal[];
  dropped: DroppedOp[];
  /** The proposal was refused because it states its task's reference answer. */
  leaked: boolean;
}

/**
 * Checks a hindsight answer against the step's snapshot: the usual form rules with at most one
 * operation, a modify or delete only of a suspect lesson, and no lesson that quotes the task's
 * reference answer (a lesson must generalise, and the gate judges it only on held-out tasks).
 */
export function checkHindsight(
  op: Proposal | null | undefined,
  snapshot: readonly RunExperience[],
  suspects: readonly string[],
  reference: string | null,
  source: string,
): HindsightCheck {
  const v = validateProposals(op ? [op] : [], snapshot, 1, source);
  const dropped = v.dropped.slice();
  const kept: Proposal[] = [];
  let leaked = false;
  for (const p of v.kept) {
    if (p.op === "modify" || p.op === "delete") {
      const label = labelOf(parseLabel(p.target)!);
      if (!suspects.includes(label)) {
        dropped.push({
          source,
          op: p,
          reason: `hindsight may only ${p.op} a lesson the failed attempts used (${suspects.join(", ") || "none"}), not ${label}`,
        });
        continue;
      }
      p.target = label;
    }
    if (p.op !== "delete" && quotesReference(p.text, reference)) {
      leaked = true;
      dropped.push({ source, op: p, reason: "quotes its task's reference answer: a lesson must generalise, not give the answer away" });
      continue;
    }
    kept.push(p);
  }
  return { kept, dropped, leaked };
}

// ---------------------------------------------------------------- provenance of the plan

const words = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

function similarity(a: string, b: string): number {
  const x = words(a);
  const y = words(b);
  if (!x.size || !y.size) return 0;
  let shared = 0;
  for (const w of x) if (y.has(w)) shared++;
  return shared / (x.size + y.size - shared);
}

/** A plan operation is attributed to the proposal it most resembles, when it resembles one at least this much. */
export const ATTRIBUTION_MIN_SIMILARITY = 0.5;

export interface SourcedProposal extends Proposal {
  provenance: ProvenanceKind;
}

/** A plan operation as attribution sees it: what it does, its text, the snapshot positions it touches. */
export interface TracedOp {
  op: "add" | "modify" | "merge" | "delete";
  text: string;
  targets: readonly number[];
}

/**
 * Where each operation of the batch plan came from. The batch update rewrites and merges
 * proposals, so an operation is traced by what it does: a delete to the proposals that deleted
 * the same lesson, a text to the proposal whose text it resembles most (a proposal that touched
 * the same lesson counts a little more). Anything not traced to a hindsight proposal counts as
 * contrast, the reference pipeline's provenance.
 */
export function attributePlan(plan: readonly TracedOp[], proposals: readonly SourcedProposal[]): ProvenanceKind[] {
  return plan.map((op) => {
    const targets = new Set(op.targets);
    const touches = (p: SourcedProposal) => (p.op === "modify" || p.op === "delete") && targets.has(parseLabel(p.target) ?? -1);
    if (op.op === "delete") {
      const same = proposals.filter((p) => p.op === "delete" && touches(p));
      return same.length && same.every((p) => p.provenance === "hindsight") ? "hindsight" : "contrast";
    }
    let best: SourcedProposal | null = null;
    let score = ATTRIBUTION_MIN_SIMILARITY;
    for (const p of proposals) {
      if (p.op === "delete" || p.op === "none") continue;
      const s = similarity(op.text, p.text) + (touches(p) ? 0.25 : 0);
      // Ties go to contrast: hindsight is claimed only where it is the clearer source.
      if (s > score || (s === score && best?.provenance === "hindsight" && p.provenance === "contrast")) {
        best = p;
        score = s;
      }
    }
    return best?.provenance ?? "contrast";
  });
}

/** How the run learned a lesson: from its latest change; none for a starting lesson the run left alone. */
export function originOf(e: { lineage: readonly LineageEntry[] }): ProvenanceKind | undefined {
  const last = e.lineage[e.lineage.length - 1];
  if (!last || last.op === "start") return undefined;
  return last.provenance ?? "contrast";
}
