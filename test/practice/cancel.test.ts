import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import { memoryName } from "../../src/platform/objects/memory-name";
import { EMBEDDINGS_BASE_URL, slowEmbeddings, until } from "../doubles/slow-embeddings";
import { expectProblem } from "../helpers";
import { api, ARITHMETIC, captureQueues, practiceFixture, practiceLlm, startRun } from "./harness";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** The scripted model for the LLM, the slow remote embedder for the agent's library writes. */
function llmAndSlowEmbedder() {
  const emb = slowEmbeddings({ dims: 16 });
  const embed = emb.spy.getMockImplementation()!;
  const llm = practiceLlm();
  const real = llm.spy.getMockImplementation()!;
  llm.spy.mockImplementation(async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    return url.startsWith(EMBEDDINGS_BASE_URL) ? embed(input, init) : real(input, init);
  });
  return { emb, llm };
}

async function slowAgent(f: Awaited<ReturnType<typeof practiceFixture>>) {
  const r = await f.agent("PATCH", "/config", { embedder: { provider: "openai", model: "slow-embed", dims: 16 } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

describe("cancel and promotion", () => {
  it("cancelling a run cancels its running evaluation: no more evaluation calls are made", async () => {
    const f = await practiceFixture([]);
    const ds = await api("POST", "/v1/datasets", f.t.apiKey, {
      name: "with holdout",
      tasks: [
        ...ARITHMETIC.map((t) => ({ ...t, split: "train" })),
        ...Array.from({ length: 4 }, (_, i) => ({
          id: `h${i}`,
          task: `Holdout: what is ${40 + i} + 2 - ${i}?`,
          groundTruth: "42",
          split: "holdout",
        })),
      ],
    });
    const q = captureQueues();
    const llm = practiceLlm();
    const runId = await startRun(
      { ...f, datasetId: ds.body.datasetId },
      { epochs: 1, batchSize: 2, groupSize: 2, seed: 3, promote: "gate" },
    );
    const run = (await f.agent("GET", `/practice-runs/${runId}`)).body;
    const evaluationId = run.evaluations[0].evaluationId as string;
    expect((await f.agent("GET", `/evaluations/${evaluationId}`)).body.status).toBe("running");
    expect((await f.agent("POST", `/practice-runs/${runId}/cancel`)).body.status).toBe("cancelled");
    const calls = llm.sent.length;
    await q.pump();
    expect(llm.sent.length).toBe(calls);
    const ev = (await f.agent("GET", `/evaluations/${evaluationId}`)).body;
    expect(ev.status).toBe("cancelled");
    const after = (await f.agent("GET", `/practice-runs/${runId}`)).body;
    expect(after.status).toBe("cancelled");
    expect(after.evaluations[0].status).toBe("cancelled");
    const listed = (await f.agent("GET", "/evaluations")).body.items.find((e: any) => e.evaluationId === evaluationId);
    expect(listed.status).toBe("cancelled");
  });

  it("a cancel racing the promotion is refused once the library write began: the run ends promoted, never half", async () => {
    const f = await practiceFixture(ARITHMETIC.slice(0, 2));
    const q = captureQueues();
    const { emb } = llmAndSlowEmbedder();
    await slowAgent(f);
    const runId = await startRun(f, { epochs: 1, batchSize: 2, groupSize: 3, seed: 7, promote: "always" });
    const release = emb.hold();
    const before = emb.requests.length;
    const pumping = q.pump();
    await until(() => emb.requests.length > before);
    expectProblem(await f.agent("POST", `/practice-runs/${runId}/cancel`), 409, "conflict");
    release();
    await pumping;
    const run = (await f.agent("GET", `/practice-runs/${runId}`)).body;
    expect(run.status).toBe("completed");
    expect(run.promotion).toMatchObject({ promoted: true });
    const versions = (await f.agent("GET", "/library/versions")).body.items;
    expect(versions.filter((v: any) => /practice run/.test(v.reason))).toHaveLength(1);
  });

  it("a run cancelled before its promotion began promotes nothing", async () => {
    const f = await practiceFixture(ARITHMETIC.slice(0, 2));
    const q = captureQueues();
    practiceLlm();
    const runId = await startRun(f, { epochs: 1, batchSize: 2, groupSize: 3, seed: 7, promote: "always" });
    await q.deliverOnce({ max: 3 });
    expect((await f.agent("POST", `/practice-runs/${runId}/cancel`)).body.status).toBe("cancelled");
    await q.pump();
    const run = (await f.agent("GET", `/practice-runs/${runId}`)).body;
    expect(run).toMatchObject({ status: "cancelled", promotion: null });
    expect((await f.agent("GET", "/library/versions")).body.items.filter((v: any) => /practice run/.test(v.reason))).toHaveLength(0);
  });

  it("an edit made while the promotion is embedding is skipped, not overwritten", async () => {
    const f = await practiceFixture(ARITHMETIC.slice(0, 1));
    const emb = slowEmbeddings({ dims: 16 });
    await slowAgent(f);
    const x = (await f.agent("POST", "/experiences", { text: "Add the numbers column by column." })).body.id as string;
    const stub = env.AGENT_MEMORY.getByName(memoryName(f.t.tenantId, f.agentId)) as DurableObjectStub<AgentMemory>;
    const release = emb.hold();
    const before = emb.requests.length;
    const promotion = stub.promotePractice({
      runId: "run_edit_race",
      reason: "practice run run_edit_race: test",
      start: [{ id: x, text: "Add the numbers column by column." }],
      final: [
        { id: x, text: "Add the numbers column by column, then re-check the carry." },
        { id: "px_new", text: "Write the final answer on its own line." },
      ],
    });
    await until(() => emb.requests.length > before);
    expect((await f.agent("PATCH", `/experiences/${x}`, { pinned: true })).status).toBe(200);
    release();
    const r = await promotion;
    expect(r.ok).toBe(true);
    const value = r.ok ? r.value.value : null;
    expect(value?.skipped).toEqual([{ id: x, op: "modify", reason: "pinned in the agent's library" }]);
    expect(value?.applied).toBe(1);
    const now = (await f.agent("GET", `/experiences/${x}`)).body;
    expect(now).toMatchObject({ text: "Add the numbers column by column.", pinned: true });
  });
});
