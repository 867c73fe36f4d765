/**
 * Verifiers score one practice answer: `(task, answer, groundTruth?, config) → { reward, reasoning }`.
 * The pure kinds run here; `majority` scores a whole group at once (majorityVerdicts), and
 * `llm-judge` and `webhook` call out (src/practice/judge.ts, src/practice/webhook-verifier.ts).
 */
import { verifyJson } from "./json";
import { verifyMath, verifyNumeric } from "./numeric";
import type { Verdict, VerifierConfig } from "./schema";
import { fail, verifyContains, verifyExact, verifyRegex } from "./text";

export { extractFinalAnswer, lastBoxed } from "./extract";
export { majorityKey, majorityVerdicts } from "./majority";
export { VerdictSchema, VerifierSchema, type Verdict, type VerifierConfig, type VerifierKind } from "./schema";

export type GroupVerifierConfig = Extract<VerifierConfig, { kind: "majority" }>;
export type RemoteVerifierConfig = Extract<VerifierConfig, { kind: "llm-judge" | "webhook" }>;
/** The kinds verifyAnswer scores on its own, one answer at a time. */
export type LocalVerifierConfig = Exclude<VerifierConfig, GroupVerifierConfig | RemoteVerifierConfig>;

export interface VerifyInput {
  task: string;
  answer: string;
  groundTruth?: string | null;
}

const NEEDS_GROUND_TRUTH: ReadonlySet<VerifierConfig["kind"]> = new Set(["exact", "contains", "numeric", "math", "json"]);

/**
 * Kinds that compare with a reference answer. `llm-judge` uses one when there is one but can judge
 * without; `regex` carries its pattern; `majority` and `webhook` need none.
 */
export function needsGroundTruth(config: VerifierConfig): boolean {
  return NEEDS_GROUND_TRUTH.has(config.kind);
}

export function isGroupVerifier(config: VerifierConfig): config is GroupVerifierConfig {
  return config.kind === "majority";
}

export function isRemoteVerifier(config: VerifierConfig): config is RemoteVerifierConfig {
  return config.kind === "llm-judge" || config.kind === "webhook";
}

/** The verifier when neither the run nor the dataset names one. */
export function defaultVerifier(hasGroundTruth: boolean): VerifierConfig {
  return hasGroundTruth ? { kind: "exact" } : { kind: "majority" };
}

const hasText = (s: string | null | undefined): s is string => typeof s === "string" && s.trim() !== "";

/**
 * Scores one answer with a local kind. A kind that needs a ground truth on a task without one
 * (null or blank) scores 0 and says why; run creation rejects that combination up front, so this
 * only guards tasks added to a dataset later.
 */
export function verifyAnswer(config: LocalVerifierConfig, input: VerifyInput): Verdict {
  const { answer, groundTruth } = input;
  if (config.kind === "regex") return verifyRegex(answer, config.pattern, config.flags);
  if (!hasText(groundTruth)) {
    return fail(
      `The ${config.kind} verifier compares with a ground truth, and this task has none; use majority, llm-judge or webhook for tasks without one.`,
    );
  }
  switch (config.kind) {
    case "exact":
      return verifyExact(answer, groundTruth);
    case "contains":
      return verifyContains(answer, groundTruth, config.caseSensitive);
    case "numeric":
      return verifyNumeric(answer, groundTruth, config);
    case "math":
      return verifyMath(answer, groundTruth, config);
    case "json":
      return verifyJson(answer, groundTruth, config.mode);
  }
}
