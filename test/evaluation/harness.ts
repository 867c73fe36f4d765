import { expect } from "vitest";
import { fakeLlm, type SentRequest } from "../fake-llm";
import { api, practiceFixture } from "../practice/harness";

export { api, captureQueues } from "../practice/harness";

/** The lesson that makes the scripted policy right on every task. */
export const GOOD_LESSON = "Every answer in this set is 42.";
export const BAD_LESSON = "Subtract one from whatever you compute.";

/** Holdout tasks `q0…q{n-1}` ("What is task i?", ground truth 42) and two train tasks. */
export function holdoutTasks(n: number) {
  return [
    ...Array.from({ length: n }, (_, i) => ({ id: `q${i}`, task: `What is task ${i}?`, groundTruth: "42", split: "holdout" })),
    { id: "train-a", task: "What is train a?", groundTruth: "42", split: "train" },
    { id: "train-b", task: "What is train b?", groundTruth: "42", split: "train" },
  ];
}

export async function evaluationFixture(n: number) {
  const f = await practiceFixture([]);
  const up = await api("POST", `/v1/datasets/${f.datasetId}/tasks`, f.t.apiKey, { tasks: holdoutTasks(n) });
  expect(up.status, JSON.stringify(up.body)).toBeLessThan(300);
  return f;
}

const taskNumber = (req: SentRequest) => Number(/task (\d+)\?/.exec(String(req.body.messages.at(-1)?.content ?? ""))?.[1] ?? -1);

/**
 * A scripted policy model: with GOOD_LESSON in its system prompt it answers 42; otherwise
 * `right(task number, sampling seed)` decides. Judge calls (structured output) answer `judge`.
 */
export function evaluationLlm(opts: { right: (task: number, seed: number) => boolean; judge?: (req: SentRequest) => unknown }) {
  return fakeLlm((req: SentRequest) => {
    if (req.schemaName !== null) return opts.judge?.(req) ?? {};
    const system = String(req.body.messages[0]?.content ?? "");
    const right = system.includes(GOOD_LESSON) || opts.right(taskNumber(req), req.body.seed ?? 0);
    return `Working it out.\nFinal answer: ${right ? "42" : "41"}`;
  });
}

export async function ledger(apiKey: string) {
  const usage = await api("GET", "/v1/usage?groupBy=purpose", apiKey);
  return Object.fromEntries(usage.body.groups.map((g: any) => [g.key, { calls: g.calls, tokensIn: g.tokensIn, tokensOut: g.tokensOut }]));
}
