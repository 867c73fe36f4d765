import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import {
  conflict,
  DomainError,
  invalid,
  isRetryable,
  notFound,
  outcome,
  rateLimited,
  unavailable as briefly,
  unprocessable,
  unwrap,
} from "../../src/core/errors";
import { BudgetExceededError, LlmNotConfiguredError, LlmOutputError, LlmSettingsError, LlmUnavailableError } from "../../src/llm";
import { toProblem } from "../../src/doors/problem";
import { fakeLlm, httpError } from "../fake-llm";
import { call } from "../helpers";
import { deliver, mixedEpisode } from "../live/fixture";
import { ARITHMETIC, captureQueues, practiceFixture } from "../practice/harness";

afterEach(() => vi.restoreAllMocks());

async function liveJob() {
  const f = await mixedEpisode();
  expect(f.end.body.result.extraction).toBe("queued");
  return { f, job: { tenantId: f.t.tenantId, agentId: f.agentId, episodeId: f.episodeId, jobId: f.end.body.result.jobId as string } };
}

const jobRecord = async (f: Awaited<ReturnType<typeof mixedEpisode>>) => (await f.api("GET", "/jobs")).body.items[0];

describe("failure classification", () => {
  it("transient failures retry; configuration, budget, refused requests and other 4xx do not", () => {
    const unavailable = (retryable: boolean) => new LlmUnavailableError("upstream", { retryable, status: retryable ? 503 : 401 });
    const budget = new BudgetExceededError("t", 100, 120, Date.now() + 1000);
    const retryable = [
      unavailable(true),
      briefly("briefly down"),
      new Error("boom"),
      rateLimited("slow down", 60),
      new TypeError("fetch failed"),
      Object.assign(new Error("Durable Object reset because its code was updated."), { retryable: true }),
      Object.assign(new Error("Durable Object is overloaded."), { retryable: false, overloaded: true }),
    ];
    const settled = [
      unavailable(false),
      new LlmNotConfiguredError(),
      new LlmSettingsError(["LLM_MAX_RETRIES must be a number"]),
      budget,
      new LlmOutputError("not JSON", { schemaName: "s", issues: [], answer: "?", calls: 2 }),
      DomainError.embedderNotConfigured("no embedder", ["EMBEDDER"]),
      invalid("bad"),
      notFound("gone"),
      conflict("taken"),
      unprocessable("no tasks"),
      Object.assign(new Error("webhook answered 400"), { retryable: false }),
    ];
    expect(retryable.map(isRetryable)).toEqual(retryable.map(() => true));
    expect(settled.map(isRetryable)).toEqual(settled.map(() => false));
  });
});

describe("an agent's write that lost a race", () => {
  it("is retried: a 409 whose detail says 'retry it' is transient, unlike a conflict of the request itself", async () => {
    // What the agent's object answers when its library kept changing while a write was embedded
    // (or the embedder changed meanwhile), as the jobs see it through the resilient stub.
    const raced = await outcome(() =>
      Promise.reject(DomainError.retryLater("The library kept changing while this write was being embedded; retry it.")),
    )
      .then(unwrap)
      .catch((e: unknown) => e);
    expect(raced).toBeInstanceOf(DomainError);
    expect(toProblem(raced)!.status).toBe(409);
    expect(isRetryable(raced)).toBe(true);
    const taken = await outcome(() =>
      Promise.reject(DomainError.conflict("This Idempotency-Key was already used with a different request body.")),
    )
      .then(unwrap)
      .catch((e: unknown) => e);
    expect(isRetryable(taken)).toBe(false);
  });
});

describe("queue consumer retries only retryable failures", () => {
  it("a request the LLM provider refuses (401) is acked at once and its job marked failed with the reason", async () => {
    const { f, job } = await liveJob();
    const llm = fakeLlm(httpError(401));
    const q = await deliver(job);
    expect(q.retryMessages).toHaveLength(0);
    expect(q.explicitAcks).toEqual([`m-${job.jobId}-1`]);
    expect(llm.sent).toHaveLength(1);
    const j = await jobRecord(f);
    expect(j.status).toBe("failed");
    expect(j.reason).toMatch(/not retryable/);
    expect(j.reason).toMatch(/401/);
  });

  it("invalid LLM settings are acked and recorded, without calling the LLM", async () => {
    const { f, job } = await liveJob();
    const llm = fakeLlm(httpError(500));
    const q = await deliver(job, { extraEnv: { LLM_MAX_RETRIES: "many" } });
    expect(q.retryMessages).toHaveLength(0);
    expect(q.explicitAcks).toHaveLength(1);
    expect(llm.sent).toHaveLength(0);
    const j = await jobRecord(f);
    expect(j.status).toBe("failed");
    expect(j.reason).toMatch(/not retryable: The LLM configuration is invalid/);
  });

  it("an upstream 503 and a network error are retried with the job left 'retrying'", async () => {
    const { f, job } = await liveJob();
    fakeLlm(httpError(503));
    const q = await deliver(job);
    expect(q.explicitAcks).toHaveLength(0);
    expect(q.retryMessages).toHaveLength(1);
    expect(await jobRecord(f)).toMatchObject({ status: "retrying" });

    vi.restoreAllMocks();
    vi.spyOn(globalThis, "fetch").mockRejectedValue(new TypeError("fetch failed"));
    const again = await deliver(job, { attempts: 2 });
    expect(again.retryMessages).toHaveLength(1);
    const j = await jobRecord(f);
    expect(j.status).toBe("retrying");
    expect(j.reason).toMatch(/attempt 2 failed, will retry/);
  });

  it("a sweep for an agent that no longer exists (404) is acked, not retried", async () => {
    const { f } = await liveJob();
    const del = await call("DELETE", `/v1/agents/${f.agentId}`, { key: f.t.apiKey });
    expect(del.status).toBe(200);
    const batch = createMessageBatch("praxis-jobs", [
      {
        id: "gone",
        timestamp: new Date(),
        attempts: 1,
        body: { type: "agent.sweep", tenantId: f.t.tenantId, agentId: f.agentId, at: Date.now() },
      },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    const result = await getQueueResult(batch, ctx);
    expect(result.retryMessages).toHaveLength(0);
    expect(result.explicitAcks).toEqual(["gone"]);
  });
});

describe("practice units fail once on a failure no retry can mend", () => {
  it("a rollout the LLM provider refuses (401) is recorded as failed at its first delivery, never re-sent", async () => {
    const f = await practiceFixture(ARITHMETIC.slice(0, 2));
    const q = captureQueues();
    const llm = fakeLlm(httpError(401));
    const started = await f.agent("POST", "/practice-runs", {
      datasetId: f.datasetId,
      policy: { kind: "llm" },
      epochs: 1,
      batchSize: 2,
      groupSize: 2,
      seed: 3,
      promote: "never",
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const runId = started.body.runId as string;
    const units = q.queued.length;
    expect(units).toBeGreaterThan(0);
    await q.deliverOnce();
    // Nothing went back to the queue: every unit of the batch was settled by its one delivery.
    expect(q.queued.filter((m) => m.attempts > 1)).toEqual([]);
    expect(llm.sent).toHaveLength(units);
    const rollouts = (await f.agent("GET", `/practice-runs/${runId}/rollouts`)).body.items as { error: string | null }[];
    expect(rollouts).toHaveLength(units);
    for (const r of rollouts) expect(r.error).toMatch(/401/);
  });
});
