import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import { memoryName } from "../../src/platform/objects/memory-name";
import { practiceRunPorts } from "../../src/platform/objects/follow-up";
import { consumeJobs } from "../../src/jobs/consumer";
import { RunCreateSchema, type RunConfig } from "../../src/core/practice/run-types";
import type { RunExperience } from "../../src/core/practice/plan";
import { api, ARITHMETIC, captureQueues, practiceFixture, practiceLlm, startRun } from "./harness";

afterEach(() => vi.restoreAllMocks());

const memoryOf = (tenantId: string, agentId: string) =>
  env.AGENT_MEMORY.getByName(memoryName(tenantId, agentId)) as DurableObjectStub<AgentMemory>;

async function incarnationOf(tenantId: string, agentId: string): Promise<string> {
  const r = await memoryOf(tenantId, agentId).incarnation();
  if (!r.ok) throw new Error(r.error.detail);
  return r.value;
}

/** Deletes the agent and creates it again under the same id, as a user who starts over would. */
async function recreate(f: Awaited<ReturnType<typeof practiceFixture>>) {
  expect((await api("DELETE", `/v1/agents/${f.agentId}`, f.t.apiKey)).status).toBe(200);
  expect((await api("PUT", `/v1/agents/${f.agentId}`, f.t.apiKey, {})).status).toBe(201);
}

describe("incarnations: work of a deleted agent never lands in the agent created again under its id", () => {
  it("each creation draws a new incarnation, and a run is set up with the one it works for", async () => {
    const f = await practiceFixture(ARITHMETIC);
    captureQueues();
    practiceLlm();
    const first = await incarnationOf(f.t.tenantId, f.agentId);
    expect(await incarnationOf(f.t.tenantId, f.agentId)).toBe(first);
    const runId = await startRun(f, { epochs: 1, batchSize: 2, groupSize: 2, seed: 1 });
    const stored = await runInDurableObject(env.PRACTICE_RUN.getByName(runId), (_i, state) =>
      state.storage.sql.exec<{ agent_incarnation: string }>("SELECT agent_incarnation FROM run").one(),
    );
    expect(stored.agent_incarnation).toBe(first);
    await recreate(f);
    expect(await incarnationOf(f.t.tenantId, f.agentId)).not.toBe(first);
  });

  it("a promotion of the earlier agent's run is refused: the run ends unpromoted and the new agent's library stays empty", async () => {
    const f = await practiceFixture(ARITHMETIC.slice(0, 1));
    const old = await incarnationOf(f.t.tenantId, f.agentId);
    const run = {
      runId: "run_of_the_old_agent",
      tenantId: f.t.tenantId,
      agentId: f.agentId,
      datasetId: f.datasetId,
      config: RunCreateSchema.parse({ datasetId: f.datasetId, policy: { kind: "llm" } }) as unknown as RunConfig,
      finishing: "completed" as const,
      stoppedEarly: null,
      agentIncarnation: old,
    };
    const final = [{ id: "px_new", text: "Write the final answer on its own line.", q: 0, lineage: [] }] as unknown as RunExperience[];
    // Deleted and created again while the run was promoting (a cancel is refused once promotion began).
    await recreate(f);
    const promotion = await practiceRunPorts(env).promote(run, [], final, "the gate passed");
    expect(promotion).toMatchObject({ promoted: false, version: null, applied: 0 });
    expect(promotion.reason).toMatch(/earlier agent/);
    expect((await f.agent("GET", "/experiences")).body.items).toEqual([]);
    expect((await f.agent("GET", "/library/versions")).body.items.filter((v: any) => /run_of_the_old_agent/.test(v.reason))).toEqual([]);

    // The new agent's own run promotes.
    const own = await practiceRunPorts(env).promote(
      { ...run, runId: "run_of_the_new_agent", agentIncarnation: await incarnationOf(f.t.tenantId, f.agentId) },
      [],
      final,
      "the gate passed",
    );
    expect(own).toMatchObject({ promoted: true, applied: 1 });
  });

  it("a job queued by the earlier agent is dropped: no LLM call, no job or lesson in the new agent", async () => {
    const f = await practiceFixture(ARITHMETIC.slice(0, 1));
    const old = await incarnationOf(f.t.tenantId, f.agentId);
    await recreate(f);
    const llm = practiceLlm();
    let acked = 0;
    let retried = 0;
    const message = {
      id: "m1",
      timestamp: new Date(),
      attempts: 1,
      body: { type: "live.extract", tenantId: f.t.tenantId, agentId: f.agentId, episodeId: "ep_old", jobId: "job_old", incarnation: old },
      ack: () => void acked++,
      retry: () => void retried++,
    };
    await consumeJobs({ queue: "praxis-jobs", messages: [message], ackAll() {}, retryAll() {} } as unknown as MessageBatch<unknown>, {
      ...env,
      LLM_BASE_URL: "http://llm.test/v1",
      LLM_MODEL: "m",
    });
    expect([acked, retried]).toEqual([1, 0]);
    expect(llm.sent).toHaveLength(0);
    expect((await f.agent("GET", "/jobs")).body.items).toEqual([]);
    // The agent's object refuses the old job's writes itself too, whoever gets them through.
    const write = await memoryOf(f.t.tenantId, f.agentId).startLiveJob({ jobId: "job_old", episodeId: "ep_old", incarnation: old });
    expect(write).toMatchObject({ ok: false, error: { kind: "not-found" } });
    expect((await f.agent("GET", "/jobs")).body.items).toEqual([]);
  });

  it("deleting the agent cancels a run still being created", async () => {
    const f = await practiceFixture(ARITHMETIC.slice(0, 1));
    await env.DB.prepare(
      "INSERT INTO practice_runs (run_id, tenant_id, agent_id, dataset_id, status, config) VALUES (?, ?, ?, ?, 'creating', '{}')",
    )
      .bind("run_being_created", f.t.tenantId, f.agentId, f.datasetId)
      .run();
    const del = await api("DELETE", `/v1/agents/${f.agentId}`, f.t.apiKey);
    expect(del.status).toBe(200);
    const row = await env.DB.prepare("SELECT status FROM practice_runs WHERE run_id = 'run_being_created'").first<{ status: string }>();
    expect(row?.status).toBe("cancelled");
  });
});
