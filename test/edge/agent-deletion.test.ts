import { createExecutionContext, createMessageBatch, env, getQueueResult, runInDurableObject } from "cloudflare:test";
import worker from "../../src/index";
import { LLM_ENV } from "../fake-llm";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import { memoryName } from "../../src/platform/objects/memory-name";
import { InMemoryVectorize } from "../doubles/vectorize";
import { slowEmbedderAgent } from "../memory/setup";
import { ARITHMETIC, api, captureQueues, practiceFixture, practiceLlm, startRun } from "../practice/harness";
import { call, expectProblem, newAgent, newTenant } from "../helpers";
import { probedWorker } from "./probe";
import { evaluationFixture, evaluationLlm } from "../evaluation/harness";

afterEach(() => vi.restoreAllMocks());

const memoryOf = (tenantId: string, agentId: string) =>
  env.AGENT_MEMORY.getByName(memoryName(tenantId, agentId)) as DurableObjectStub<AgentMemory>;

/** The agent's own SQL tables (the object's internal `_cf_` tables hold only its deletion marker). */
const agentTables = (stub: DurableObjectStub<AgentMemory>) =>
  runInDurableObject(stub, (_i, state) =>
    state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .toArray()
      .map((r) => r.name)
      .filter((n) => !n.startsWith("_cf")),
  );

describe("deleting an agent", () => {
  it("during a practice run: the run is cancelled, nothing it does later recreates the agent, the same id starts empty", async () => {
    const f = await practiceFixture(ARITHMETIC);
    const q = captureQueues();
    practiceLlm();
    await f.agent("POST", "/experiences", { text: "Re-check the arithmetic before answering" });
    const schedule = await f.agent("PUT", "/practice-schedules/nightly", {
      every: "6h",
      datasetId: f.datasetId,
      run: { policy: { kind: "llm" }, epochs: 1, batchSize: 2, groupSize: 3 },
    });
    expect(schedule.status, JSON.stringify(schedule.body)).toBe(201);
    const runId = await startRun(f, { epochs: 2, batchSize: 2, groupSize: 3, seed: 7 });
    await q.deliverOnce({ max: 2 });

    const del = await api("DELETE", `/v1/agents/${f.agentId}`, f.t.apiKey);
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    expect(del.body).toMatchObject({ deleted: true, storageDeleted: true, runsCancelled: 1 });

    await q.pump();
    const run = await env.DB.prepare("SELECT status FROM practice_runs WHERE run_id = ?").bind(runId).first<{ status: string }>();
    expect(run!.status).toBe("cancelled");
    const schedules = await env.DB.prepare("SELECT count(*) AS n FROM practice_schedules WHERE tenant_id = ? AND agent_id = ?")
      .bind(f.t.tenantId, f.agentId)
      .first<{ n: number }>();
    expect(schedules!.n).toBe(0);
    const stub = memoryOf(f.t.tenantId, f.agentId);
    expect(await agentTables(stub)).toEqual([]);

    // Everything that could write to it is refused by the object itself, whoever calls.
    for (const attempt of [
      () => stub.promotePractice({ runId, reason: "late", operations: [], author: `run:${runId}` } as never),
      () => stub.createExperience({ experience: { text: "written after the deletion" }, author: "test" } as never),
      () => stub.startLiveJob({ jobId: "job_late", episodeId: "ep_late" }),
      () => stub.createCase({ case: { task: "late case", reward: 1, label: "positive" } } as never),
      () => stub.sweep({ at: Date.now() }),
    ]) {
      const r = await attempt();
      expect(r.ok).toBe(false);
      expect(!r.ok && r.error.kind).toBe("not-found");
    }
    expect(await agentTables(stub)).toEqual([]);
    expectProblem(await api("POST", `/v1/agents/${f.agentId}/retrieve`, f.t.apiKey, { query: "arithmetic" }), 404, "not-found");
    expectProblem(await api("GET", `/v1/agents/${f.agentId}/prompt`, f.t.apiKey), 404, "not-found");
    expectProblem(await api("POST", `/v1/agents/${f.agentId}/episodes`, f.t.apiKey, { task: "late" }), 404, "not-found");
    expectProblem(await api("GET", `/v1/agents/${f.agentId}`, f.t.apiKey), 404, "not-found");

    expect((await api("PUT", `/v1/agents/${f.agentId}`, f.t.apiKey, {})).status).toBe(201);
    expect((await api("GET", `/v1/agents/${f.agentId}/experiences`, f.t.apiKey)).body.items).toEqual([]);
    expect((await api("GET", `/v1/agents/${f.agentId}/cases`, f.t.apiKey)).body.items).toEqual([]);
    expect((await api("GET", `/v1/agents/${f.agentId}/library/versions`, f.t.apiKey)).body.items).toEqual([]);
  });

  it("the isolate that deleted an agent stops serving its reads at once, though its snapshot was fresh", async () => {
    const t = await newTenant();
    const agentId = await newAgent(t.apiKey);
    const w = probedWorker({}, { READ_STALENESS_MS: "60000" });
    await w.call("POST", `/v1/agents/${agentId}/experiences`, t.apiKey, { text: "Pin the image digest" });
    const read = () => w.call("POST", `/v1/agents/${agentId}/retrieve`, t.apiKey, { query: "image digest" });
    expect((await read()).body.servedFrom).toBe("edge");
    expect((await read()).trips.AGENT_MEMORY).toBe(0);
    expect((await w.call("DELETE", `/v1/agents/${agentId}`, t.apiKey)).status).toBe(200);
    expectProblem(await read(), 404, "not-found");
    expectProblem(await w.call("GET", `/v1/agents/${agentId}/prompt`, t.apiKey), 404, "not-found");
  });

  it("cancels the agent's evaluations that have not ended: no more evaluation calls are made", async () => {
    const f = await evaluationFixture(6);
    const q = captureQueues();
    const llm = evaluationLlm({ right: () => true });
    const created = await f.agent("POST", "/evaluations", { datasetId: f.datasetId, policy: { kind: "llm" } });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    await q.deliverOnce({ max: 1 });
    const del = await api("DELETE", `/v1/agents/${f.agentId}`, f.t.apiKey);
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    expect(del.body).toMatchObject({ deleted: true, evaluationsCancelled: 1 });
    const calls = llm.sent.length;
    await q.pump();
    expect(llm.sent.length).toBe(calls);
    const view = (await env.EVALUATION.getByName(created.body.evaluationId).view()) as { status: string } | null;
    expect(view?.status).toBe("cancelled");
  });

  it("a write in flight when the agent is deleted does not bring its memory back", async () => {
    const { api: agentApi, emb, stub, t, agentId } = await slowEmbedderAgent();
    const release = emb.hold();
    const inFlight = agentApi("POST", "/experiences", { text: "Pin dependency versions in CI" });
    await emb.arrived(1);
    const del = await call("DELETE", `/v1/agents/${agentId}`, { key: t.apiKey });
    expect(del.status).toBe(200);
    release();
    const late = await inFlight;
    expectProblem(late, 404, "not-found");
    expect(await agentTables(stub)).toEqual([]);
    await newAgent(t.apiKey, agentId);
    expect((await agentApi("GET", "/experiences")).body.items).toEqual([]);
  });

  it("erases the agent's vectors from Vectorize (ids derived from the object's name and item ids)", async () => {
    const t = await newTenant();
    const agentId = await newAgent(t.apiKey);
    const stub = memoryOf(t.tenantId, agentId);
    const double = new InMemoryVectorize({ dimensions: 384 });
    const ids: string[] = await runInDurableObject(stub, async (obj) => {
      const instance = obj as any;
      instance.env = { ...instance.env, VECTOR_INDEX: "vectorize", VECTORIZE: double };
      instance.mem.vectors = await instance.buildVectorStore();
      await instance.mem.vectors.load();
      const a = await instance.createExperience({ experience: { text: "Retry HTTP 429 with exponential backoff" }, author: "test" });
      const b = await instance.createCase({ case: { task: "Fetch the exchange rates", answer: "1.09", reward: 1, label: "positive" } });
      expect(a.ok && b.ok).toBe(true);
      double.settle();
      return Promise.all([a.value.value.experience.id, b.value.value.case.id].map((id: string) => instance.mem.vectors.index.vectorId(id)));
    });
    for (const id of ids) expect(double.hasVisible(id)).toBe(true);

    const deleted = await runInDurableObject(stub, (obj) => (obj as unknown as AgentMemory).deleteAgent());
    expect(deleted).toEqual({ ok: true, value: { storageDeleted: true } });
    double.settle();
    for (const id of ids) expect(double.hasVisible(id)).toBe(false);
  });

  it("an unknown agent's object answers 404 and stores nothing", async () => {
    const t = await newTenant();
    expectProblem(
      await call("POST", `/v1/agents/never-created/rewards`, { key: t.apiKey, body: { retrievalId: "r_x", outcome: "success" } }),
      404,
    );
    expect(await agentTables(memoryOf(t.tenantId, "never-created"))).toEqual([]);
    expectProblem(await call("DELETE", `/v1/agents/never-created`, { key: t.apiKey }), 404);
  });

  it("an agent from before objects tracked their state is adopted once from D1; one deleted back then stays 404", async () => {
    const t = await newTenant();
    const agentId = await newAgent(t.apiKey);
    const added = await call("POST", `/v1/agents/${agentId}/experiences`, {
      key: t.apiKey,
      body: { text: "Pin dependency versions in CI" },
    });
    expect(added.status).toBe(201);
    const stub = memoryOf(t.tenantId, agentId);
    const forgetState = () => runInDurableObject(stub, (_i, state) => void state.storage.kv.delete("praxis:agent"));
    const stateOf = () => runInDurableObject(stub, (_i, state) => state.storage.kv.get<{ state: string }>("praxis:agent")?.state);

    await forgetState();
    const r = await call("POST", `/v1/agents/${agentId}/retrieve`, { key: t.apiKey, body: { query: "pin dependency versions" } });
    expect(r.status).toBe(200);
    expect(r.body.items.map((i: { id: string }) => i.id)).toEqual([added.body.id]);
    expect(await stateOf()).toBe("active");

    await env.DB.prepare("DELETE FROM agents WHERE tenant_id = ? AND agent_id = ?").bind(t.tenantId, agentId).run();
    await forgetState();
    expectProblem(await call("POST", `/v1/agents/${agentId}/retrieve`, { key: t.apiKey, body: { query: "pin" } }), 404, "not-found");
    expect(await stateOf()).toBeUndefined();
  });

  it("a live-learning job still queued for a deleted agent is acknowledged, not retried, and recreates nothing", async () => {
    const t = await newTenant();
    const agentId = await newAgent(t.apiKey);
    const ep = await call("POST", `/v1/agents/${agentId}/episodes`, { key: t.apiKey, body: { task: "Install the dependencies" } });
    expect(ep.status).toBe(201);
    expect((await call("DELETE", `/v1/agents/${agentId}`, { key: t.apiKey })).status).toBe(200);
    const batch = createMessageBatch("praxis-jobs", [
      {
        id: "late-job",
        timestamp: new Date(),
        attempts: 1,
        body: { type: "live.extract", tenantId: t.tenantId, agentId, episodeId: ep.body.id, jobId: `job_extract_${ep.body.id}` },
      },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, { ...env, ...LLM_ENV } as typeof env);
    const result = await getQueueResult(batch, ctx);
    expect(result.retryMessages).toEqual([]);
    expect(result.explicitAcks).toEqual(["late-job"]);
    expect(await agentTables(memoryOf(t.tenantId, agentId))).toEqual([]);
  });
});
