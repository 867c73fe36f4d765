import type { VerifierConfig, Verdict } from "../verifiers/schema";
import type { BatchPlan, GroupAdvantage, Proposal } from "./plan";
import type { Policy, UsageTotals } from "./run-types";
import type { HindsightLesson, ProvenanceKind } from "./hindsight";

export interface LibraryLine {
  label: string;
  text: string;
}

interface UnitContext {
  runId: string;
  tenantId: string;
  agentId: string;
}

/** Everything a queue consumer needs to run one unit; the DO hands it out when the unit is claimed. */
export type UnitInput = UnitContext &
  (
    | {
        stage: "rollout";
        rolloutId: string;
        taskId: string;
        task: string;
        policy: Policy;
        library: LibraryLine[];
        seed: number;
        /** A webhook rollout's holder secret: the agent must send it with a later result. */
        resultSecret?: string;
      }
    | { stage: "verify"; taskId: string; task: string; answer: string; groundTruth: string | null; verifier: VerifierConfig }
    | {
        stage: "summary";
        task: string;
        reference: string | null;
        library: LibraryLine[];
        attempts: { answer: string; trajectory: string | null; reward: number }[];
      }
    | {
        stage: "advantage";
        task: string;
        reference: string | null;
        library: LibraryLine[];
        maxOps: number;
        attempts: { summary: string; answer: string; reward: number }[];
      }
    | {
        stage: "hindsight";
        task: string;
        reference: string | null;
        library: LibraryLine[];
        /** The labels of lessons the attempts cited (all the lessons when they cited none): the only ones it may modify or delete. */
        suspects: string[];
        attempts: { answer: string; trajectory: string | null; reward: number; verdict: string | null }[];
      }
    | { stage: "batch"; library: LibraryLine[]; maxExperiences: number; groups: BatchGroup[] }
  );

/** One group's proposals as the batch update sees them; `hindsight` marks a group whose attempts all failed. */
export interface BatchGroup {
  taskId: string;
  task: string;
  analysis: string;
  proposals: Proposal[];
  provenance?: ProvenanceKind;
}

/** The safety verdict on each operation's text of a batch plan (null: nothing to review); null as a whole when the review failed. */
export type PlanReview = ({ safe: boolean; category: string; reason: string } | null)[] | null;

export type UnitData = {
  rollout: { answer: string; trajectory: string | null };
  verify: Verdict;
  summary: { summaries: string[] };
  advantage: GroupAdvantage;
  hindsight: HindsightLesson;
  batch: BatchPlan & { review?: PlanReview; reviewError?: string };
};

/**
 * What a consumer reports for a unit. `error` marks a unit that failed for good (after retries):
 * the run goes on without it. `fatal` fails the whole run (no LLM configured any more), and
 * `budgetExceeded` stops it as `budget-exhausted`. `awaiting` says a webhook policy accepted the
 * rollout with 202 and will post its result later.
 */
export interface UnitResult<D = unknown> {
  data?: D;
  usage?: UsageTotals;
  error?: string;
  fatal?: boolean;
  budgetExceeded?: boolean;
  awaiting?: boolean;
}

/**
 * The outcome of claiming a unit: run it under the numbered lease (renewed by heartbeats, named
 * when giving the unit back), or do nothing because it is finished, held by another or void.
 */
export type Claim = { status: "run"; input: UnitInput; lease: number } | { status: "done" | "busy" | "void" };

/**
 * What became of a webhook rollout's posted result: recorded, the same result again, or refused
 * because the rollout is unknown (or not a webhook's), the secret is not its holder's, its deadline
 * passed, a different result is on record, or its run or evaluation no longer takes results.
 */
export type RolloutOutcome = "accepted" | "duplicate" | "unknown" | "unauthorized" | "expired" | "conflict" | "finished";

/** Whether a stored unit result is this rollout answer (a repeated post), not a different one or a timeout. */
export function sameRolloutResult(stored: string | null, data: UnitData["rollout"]): boolean {
  const r = stored ? (JSON.parse(stored) as UnitResult<UnitData["rollout"]>) : null;
  return !!r?.data && !r.error && r.data.answer === data.answer && r.data.trajectory === data.trajectory;
}

/** What prompts show for an empty library, so the model is not left guessing. */
export const NO_LESSONS = "(no lessons yet)";

/** Trajectories and answers are capped where they are stored and where they enter prompts. */
export const MAX_TRAJECTORY_CHARS = 24_000;
export const MAX_ANSWER_CHARS = 8_000;

/** Keeps the head and the tail, where the approach and the final answer usually are. */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor((max - 40) / 2);
  return `${text.slice(0, half)}\n… [${text.length - 2 * half} characters omitted] …\n${text.slice(-half)}`;
}

export type { Verdict };
