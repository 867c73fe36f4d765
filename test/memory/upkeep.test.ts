import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import { SWEEP_DUE_KEY } from "../../durable-objects/agent-memory/upkeep/maintenance";
import { nextFadeAt } from "../../src/core/decay";
import { defaultAgentConfig } from "../../src/core/agent-config";
import type { JobMessage } from "../../src/core/job-messages";
import { jobHandlers } from "../../src/jobs/handlers";
import { createLogger } from "../../src/core/logger";
import { memoryName } from "../../src/platform/objects/memory-name";
import { agentFixture } from "./setup";
import { until } from "../doubles/slow-embeddings";

type Stub = DurableObjectStub<AgentMemory>;

/** Records what the agent's object sends to the job queue (the test environment has no consumer). */
async function recordEnqueues(stub: Stub): Promise<JobMessage[]> {
  const sent: JobMessage[] = [];
  await runInDurableObject(stub, (instance) => {
    const target = instance as unknown as { env: Record<string, unknown> };
    target.env = { ...target.env, JOBS: { send: async (msg: JobMessage) => void sent.push(msg) } };
  });
  return sent;
}

const alarmOf = (stub: Stub) => runInDurableObject(stub, (_o, state) => state.storage.getAlarm());

/** Fires the object's alarm as if its sweep were due now (the alarm itself would come later on the clock). */
async function fireSweep(stub: Stub): Promise<void> {
  await runInDurableObject(stub, async (_o, state) => {
    state.storage.kv.put(SWEEP_DUE_KEY, Date.now() - 1);
    await state.storage.setAlarm(Date.now() + 3_600_000);
  });
  expect(await runDurableObjectAlarm(stub)).toBe(true);
}

async function usedAgent() {
  const f = await agentFixture();
  const stub = env.AGENT_MEMORY.getByName(memoryName(f.t.tenantId, f.agentId)) as Stub;
  return { ...f, stub };
}

describe("an agent sweeps itself from its object's alarm", () => {
  it("is swept within 5 minutes of a call, then sleeps until the next lesson fades; with nothing due it sets no alarm", async () => {
    const { api, stub } = await usedAgent();
    const created = await api("POST", "/experiences", { text: "Retry HTTP 429 with exponential backoff" });
    expect(created.status).toBe(201);
    const soon = await alarmOf(stub);
    expect(soon).not.toBeNull();
    expect(soon!).toBeLessThanOrEqual(Date.now() + 5 * 60_000);

    await fireSweep(stub);
    const row = await runInDurableObject(stub, (_o, state) =>
      state.storage.sql
        .exec<{ q: number; created_at: number }>("SELECT q, created_at FROM experiences WHERE id = ?", created.body.id)
        .one(),
    );
    const decay = defaultAgentConfig().decay;
    const fades = nextFadeAt(
      [{ id: created.body.id, pinned: false, status: "active", q: row.q, uses: 0, createdAt: row.created_at, lastUsedAt: 0 }],
      decay,
      decay.threshold,
    );
    expect(fades).toBeGreaterThan(Date.now() + 86_400_000);
    expect(await alarmOf(stub)).toBe(fades);

    // Nothing can fade and nothing is kept for a limited time: no upkeep is ever due.
    expect((await api("PATCH", "/config", { decay: { enabled: false } })).status).toBe(200);
    await fireSweep(stub);
    expect(await alarmOf(stub)).toBeNull();
  });

  it("ends an open episode past its time-to-live with nobody calling, and asks once for a remedial check after episodes end", async () => {
    const { api, stub } = await usedAgent();
    expect((await api("PATCH", "/config", { remedial: { enabled: true } })).status).toBe(200);
    const open = await stub.createEpisode({ episode: { task: "Reconcile the March invoices" } });
    const done = await stub.createEpisode({ episode: { task: "Convert 10 EUR to USD" } });
    if (!open.ok || !done.ok) throw new Error("episode not created");
    expect((await stub.endEpisode({ episodeId: done.value.value.id, end: { outcome: "failure" } })).ok).toBe(true);
    const sent = await recordEnqueues(stub);

    // Left open for two hours (the time-to-live is one): the sweep due after the calls ends it.
    await runInDurableObject(stub, (_o, state) => {
      state.storage.sql.exec("UPDATE episodes SET created_at = created_at - ? WHERE id = ?", 2 * 3_600_000, open.value.value.id);
    });
    await fireSweep(stub);
    expect((await api("GET", `/episodes/${open.value.value.id}`)).body).toMatchObject({ status: "ended", outcome: "timeout" });
    const remedial = () => sent.filter((m) => m.type === "agent.remedial");
    expect(remedial()).toHaveLength(1);
    // The jobs queue's handler makes the check (too few ended episodes yet for a verdict).
    const checked = await jobHandlers["agent.remedial"](
      remedial()[0] as Extract<JobMessage, { type: "agent.remedial" }>,
      env,
      createLogger(),
      { attempts: 1 },
    );
    expect(checked).toMatchObject({ outcome: "not-due" });

    // No episode ended since: the next sweep asks nothing.
    await fireSweep(stub);
    expect(remedial()).toHaveLength(1);
  });
});

describe("a call that overlaps a sweep", () => {
  it("is swept within 5 minutes like any call, not forgotten by the plan the sweep makes when it ends", async () => {
    const { api, stub } = await usedAgent();
    expect((await api("PATCH", "/config", { remedial: { enabled: true } })).status).toBe(200);
    const first = await stub.createEpisode({ episode: { task: "Convert 10 EUR to USD" } });
    const second = await stub.createEpisode({ episode: { task: "Convert 20 EUR to USD" } });
    if (!first.ok || !second.ok) throw new Error("episode not created");
    expect((await stub.endEpisode({ episodeId: first.value.value.id, end: { outcome: "failure" } })).ok).toBe(true);

    // The sweep asks for a remedial check (a queue send, which lets other calls in); meanwhile the
    // agent is called: its other episode ends, a change the next sweep must look at.
    const ended: boolean[] = [];
    await runInDurableObject(stub, (instance) => {
      const target = instance as unknown as { env: Record<string, unknown> };
      target.env = {
        ...target.env,
        JOBS: {
          send: async (msg: JobMessage) => {
            if (msg.type === "agent.remedial")
              ended.push(
                (await (instance as AgentMemory).endEpisode({ episodeId: second.value.value.id, end: { outcome: "failure" } })).ok,
              );
          },
        },
      };
    });
    await runInDurableObject(stub, async (_o, state) => {
      state.storage.kv.put(SWEEP_DUE_KEY, Date.now() - 1);
      await state.storage.setAlarm(Date.now() + 3_600_000);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(ended).toEqual([true]);

    const next = await alarmOf(stub);
    expect(next).not.toBeNull();
    expect(next!).toBeLessThanOrEqual(Date.now() + 5 * 60_000);
  });
});

describe("upkeep that fails", () => {
  it("is tried again at the active cadence, not re-armed for at once in a hot loop", async () => {
    const { api, stub } = await usedAgent();
    expect((await api("POST", "/experiences", { text: "Retry HTTP 429 with exponential backoff" })).status).toBe(201);
    // A step of a Vectorize backfill that keeps failing in a way its own retry does not catch.
    const tries = await runInDurableObject(stub, (instance) => {
      const vectors = (instance as unknown as { mem: { vectors: { backfillDueAt(): number | null; backfillStep(): Promise<void> } } }).mem
        .vectors;
      const count = { n: 0 };
      vectors.backfillDueAt = () => Date.now();
      vectors.backfillStep = () => {
        count.n++;
        return Promise.reject(new Error("Vectorize answered something unexpected"));
      };
      return count;
    });
    // The object's alarm fires on its own; give a hot loop the time to show itself.
    await runInDurableObject(stub, (_o, state) => state.storage.setAlarm(Date.now()));
    await until(() => tries.n > 0);
    await new Promise((r) => setTimeout(r, 300));
    expect(tries.n).toBe(1);
    const next = await alarmOf(stub);
    expect(next).not.toBeNull();
    expect(next!).toBeGreaterThan(Date.now() + 60_000);
  });
});
