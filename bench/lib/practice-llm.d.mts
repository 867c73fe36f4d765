// Types for practice-llm.mjs, used by test/node.
export interface ReceivedCall {
  callId: string | null;
  stage: string;
  /** sha256 of the request body: the same call sent again has the same key. */
  key: string;
  /** Its caller was gone before the answer. */
  cutOff: boolean;
}
export interface PracticeLlm {
  baseUrl: string;
  port: number;
  received: ReceivedCall[];
  answered: { calls: number; tokens: number };
  quietMs(): number;
  holdWhen(predicate: (call: ReceivedCall, index: number) => boolean): Promise<void>;
  release(): { cutOff: ReceivedCall[]; passed: ReceivedCall[] };
  close(): Promise<void>;
}
export function practiceTasks(n: number): { id: string; task: string; groundTruth: string; split: "train" }[];
export function startPracticeLlm(opts?: {
  port?: number;
  latencyMs?: number;
  reply?: (stage: string, body: unknown) => string;
}): Promise<PracticeLlm>;
