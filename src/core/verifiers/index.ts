import type { Verdict, VerifierConfig } from "./schema";

export const isGroupVerifier = (c: VerifierConfig) => c.kind === "majority";
export const isRemoteVerifier = (c: VerifierConfig) => c.kind === "llm-judge" || c.kind === "webhook";
export const needsGroundTruth = (c: VerifierConfig) => !["majority", "llm-judge", "webhook", "regex"].includes(c.kind);
export const defaultVerifier = (hasGroundTruth: boolean): VerifierConfig => (hasGroundTruth ? { kind: "exact" } : { kind: "majority" });

const norm = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();

export function verifyAnswer(config: VerifierConfig, input: { task: string; answer: string; groundTruth: string | null }): Verdict {
  if (input.groundTruth === null) return { reward: 0, reasoning: "no ground truth" };
  const ok = config.kind === "contains" ? norm(input.answer).includes(norm(input.groundTruth)) : norm(input.answer) === norm(input.groundTruth);
  return { reward: ok ? 1 : 0, reasoning: ok ? "matches" : "differs" };
}

export function majorityVerdicts(answers: string[]): Verdict[] {
  const counts = new Map<string, number>();
  for (const a of answers) counts.set(norm(a), (counts.get(norm(a)) ?? 0) + 1);
  const best = [...counts.entries()].sort((a, b) => b[1] - a[1]);
  const top = best[0]?.[0];
  return answers.map((a) => (norm(a) === top ? { reward: 1, reasoning: "majority" } : { reward: 0, reasoning: "minority" }));
}

export function extractFinalAnswer(text: string): string {
  const m = /final answer:\s*(.+)\s*$/im.exec(text);
  return (m ? m[1]! : text).trim();
}
