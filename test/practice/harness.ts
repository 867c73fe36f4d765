import { createExecutionContext, createMessageBatch, env, getQueueResult, waitOnExecutionContext } from "cloudflare:test";
import { expect } from "vitest";
import worker from "../../src/index";
import { fakeLlm, LLM_ENV, type SentRequest } from "../fake-llm";
import { call, holdQueueSends, newAgent, newTenant, type Res } from "../helpers";

export const practiceEnv = { ...env, ...LLM_ENV } as typeof env;

/** Calls the Worker with the LLM configured (the module env has none), waiting for its waitUntil work. */
export async function api<T = any>(
  method: string,
  path: string,
  key: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Res<T>> {
  const ctx = createExecutionContext();
  const init: RequestInit = { method, headers: { authorization: `Bearer ${key}`, ...headers } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] = "application/json";
  }
  const res = await worker.fetch(new Request(`http://praxis.test${path}`, init), practiceEnv, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* event streams stay text */
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

export interface QueuedMessage {
  id: string;
  body: any;
  attempts: number;
}

/**
 * Captures what the Worker and its Durable Objects send to queues (the test environment has no
 * consumer), so a test can deliver each message through the real consumer — once, twice, late or
 * never — and watch the run react.
 */
export function captureQueues() {
  const queued: QueuedMessage[] = [];
  const other: unknown[] = [];
  let n = 0;
  const stats = { delivered: 0 };
  const take = (body: any) => {
    if (body?.type === "practice.unit" || body?.type === "evaluation.unit") queued.push({ id: `m${n++}`, body, attempts: 1 });
    else other.push(body);
  };
  holdQueueSends(env.PRACTICE, take);

  /** Delivers one batch of what is queued; retried messages go back on the queue with attempts + 1. */
  async function deliverOnce(opts: { duplicate?: boolean; drop?: (m: QueuedMessage) => boolean; max?: number } = {}) {
    const batch = queued.splice(0, opts.max ?? queued.length);
    const kept = batch.filter((m) => !opts.drop?.(m));
    if (kept.length === 0) return batch.length;
    const rounds = opts.duplicate ? 2 : 1;
    stats.delivered += kept.length;
    for (let r = 0; r < rounds; r++) {
      const mb = createMessageBatch(
        "praxis-practice",
        kept.map((m) => ({ id: m.id, timestamp: new Date(), attempts: m.attempts, body: m.body })),
      );
      const ctx = createExecutionContext();
      await worker.queue(mb, practiceEnv);
      const result = await getQueueResult(mb, ctx);
      if (r === 0) {
        for (const retry of result.retryMessages) {
          const m = kept.find((k) => k.id === retry.msgId)!;
          queued.push({ ...m, attempts: m.attempts + 1 });
        }
      }
    }
    return batch.length;
  }

  /** Delivers until nothing is queued (or `rounds` batches went through). */
  async function pump(opts: { duplicate?: boolean; rounds?: number } = {}) {
    let rounds = 0;
    while (queued.length && rounds < (opts.rounds ?? 500)) {
      await deliverOnce({ duplicate: opts.duplicate });
      rounds++;
    }
    return rounds;
  }

  return { queued, other, stats, deliverOnce, pump };
}

/** A tenant, an agent and a dataset of train tasks with ground truths. */
export async function practiceFixture(
  tasks: { id: string; task: string; groundTruth: string }[],
  datasetExtra: Record<string, unknown> = {},
) {
  const t = await newTenant();
  const agentId = await newAgent(t.apiKey);
  const ds = await api("POST", "/v1/datasets", t.apiKey, {
    name: "practice set",
    holdoutFraction: 0,
    tasks: tasks.map((x) => ({ ...x, split: "train" })),
    ...datasetExtra,
  });
  expect(ds.status, JSON.stringify(ds.body)).toBe(201);
  const agent = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    api(method, `/v1/agents/${agentId}${path}`, t.apiKey, body, headers);
  return { t, agentId, datasetId: ds.body.datasetId as string, agent };
}

export const ARITHMETIC = [
  { id: "add", task: "What is 17 + 25?", groundTruth: "42" },
  { id: "mul", task: "What is 6 * 7?", groundTruth: "42" },
  { id: "sub", task: "What is 50 - 8?", groundTruth: "42" },
  { id: "div", task: "What is 84 / 2?", groundTruth: "42" },
];

/** Which kind of practice call a request is, from its structured-output name (rollouts ask for none). */
export function stageOf(req: SentRequest): "rollout" | "summary" | "advantage" | "hindsight" | "batch" | "review" | "judge" | "other" {
  switch (req.schemaName) {
    case null:
      return "rollout";
    case "attempt_summaries":
      return "summary";
    case "group_advantage":
      return "advantage";
    case "hindsight_lesson":
      return "hindsight";
    case "batch_plan":
      return "batch";
    case "safety_review":
      return "review";
    default:
      return req.schemaName?.includes("judge") || req.schemaName?.includes("verdict") ? "judge" : "other";
  }
}

/** The proposals a batch-update prompt carries, read back from their fenced JSON blocks. */
export function proposalsIn(prompt: string): { op: string; target: string; text: string }[] {
  const blocks = [...prompt.matchAll(/DATA \(proposals for task [^)]*\)[^\n]*\n(`{3,})text\n([\s\S]*?)\n\1/g)];
  return blocks.flatMap((m) => JSON.parse(m[2]!));
}

const taskOf = (req: SentRequest) => String(req.body.messages.at(-1)?.content ?? "");

/**
 * Writes lessons through the API as a deployment without an LLM takes them (the Worker's own env
 * has none): their safety review waits for its queued job, so nothing calls out before the test
 * scripts its model, and the usage ledger holds only what the test then does.
 */
export async function seedLessons(f: Awaited<ReturnType<typeof practiceFixture>>, texts: string[]) {
  const written: Res[] = [];
  for (const text of texts) {
    const r = await call("POST", `/v1/agents/${f.agentId}/experiences`, { key: f.t.apiKey, body: { text } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    written.push(r);
  }
  return written;
}

/**
 * A scripted model that answers like one: rollouts answer from the task and the sampling seed
 * (so the same seed gives the same answers, and a group's answers differ), summaries one per
 * attempt, group advantages one lesson about the task, batch updates adding the proposed lessons.
 * `policy(task, seed, prompt)` says whether a rollout is right (the prompt carries the library).
 */
export function practiceLlm(
  opts: {
    policy?: (task: string, seed: number, prompt: string) => boolean;
    batch?: (req: SentRequest) => unknown;
    hindsight?: (req: SentRequest) => unknown;
  } = {},
) {
  const policy =
    opts.policy ?? ((task: string, seed: number) => (task.includes("17 + 25") ? true : task.includes("84 / 2") ? false : seed % 3 !== 0));
  const reply = (req: SentRequest): unknown => {
    const stage = stageOf(req);
    if (stage === "rollout") {
      const right = policy(taskOf(req), req.body.seed ?? 0, req.prompt);
      return `Let me work it out step by step.\nFinal answer: ${right ? "42" : "41"}`;
    }
    if (stage === "summary") {
      const n = (req.prompt.match(/^### Attempt \d+/gm) ?? []).length;
      return { summaries: Array.from({ length: n }, (_, i) => `Attempt ${i} computed directly.`) };
    }
    if (stage === "advantage") {
      const topic = /What is [^?]*\?/.exec(req.prompt)?.[0] ?? "the task";
      return {
        analysis: "The correct attempts re-checked the arithmetic before answering.",
        operations: [
          {
            op: "add",
            target: "",
            text: `Re-check the arithmetic of ${topic} before giving the final answer.`,
            reason: "wrong attempts skipped the check",
          },
        ],
      };
    }
    if (stage === "hindsight") {
      if (opts.hindsight) return opts.hindsight(req);
      return {
        diagnosis: "Every attempt answered 41 where 42 was expected; nothing general shows.",
        operation: { op: "none", target: "", text: "", reason: "no general lesson" },
      };
    }
    if (stage === "batch") {
      if (opts.batch) return opts.batch(req);
      const texts = proposalsIn(req.prompt).map((p) => p.text);
      // Like a real learner asked for it, the same call says when each lesson applies.
      const when = (text: string) => `a calculation like ${/What is [^?]*\?/.exec(text)?.[0] ?? "this one"} has to be answered exactly`;
      return {
        reasoning: "Kept each new lesson once.",
        operations: [...new Set(texts)].map((text) => ({ op: "add", targets: [], text, when: when(text), reason: "new" })),
      };
    }
    if (stage === "review") {
      // Lessons are listed as "N." lines, each followed by its text; a text saying UNSAFE fails.
      const items = [...req.prompt.matchAll(/^(\d+)\.\n[\s\S]*?text: (.*)$/gm)];
      return {
        verdicts: items.map((m) => {
          const unsafe = m[2]!.includes("UNSAFE");
          return {
            index: Number(m[1]),
            safe: !unsafe,
            category: unsafe ? "harmful-policy" : "safe",
            reason: unsafe ? "tells the agent to skip checks" : "ordinary advice",
          };
        }),
      };
    }
    return {};
  };
  const { sent, spy } = fakeLlm(reply);
  const count = (stage: ReturnType<typeof stageOf>) => sent.filter((s) => stageOf(s) === stage).length;
  return { sent, spy, count };
}

export async function startRun(f: Awaited<ReturnType<typeof practiceFixture>>, body: Record<string, unknown>) {
  const r = await f.agent("POST", "/practice-runs", { datasetId: f.datasetId, policy: { kind: "llm" }, ...body });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  return r.body.runId as string;
}
