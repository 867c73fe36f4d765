import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import { valueOf } from "../helpers";
import { agentFixture } from "./setup";

const DAY = 86_400_000;

async function fixture() {
  const f = await agentFixture();
  const stub = env.AGENT_MEMORY.getByName(`${f.t.tenantId}:${f.agentId}`) as DurableObjectStub<AgentMemory>;
  const age = (id: string, days: number) =>
    runInDurableObject(stub, (_i, state) => {
      const at = Date.now() - days * DAY;
      state.storage.sql.exec("UPDATE experiences SET created_at = ?, last_used_at = NULL WHERE id = ?", at, id);
    });
  return { ...f, stub, age };
}

describe("forgetting", () => {
  it("archives faded items (never deletes), spares pinned and useful ones, and can be rolled back", async () => {
    const { api, stub, age } = await fixture();
    const old = (await api("POST", "/experiences", { text: "old unused lesson" })).body.id;
    const pinned = (await api("POST", "/experiences", { text: "old pinned lesson", pinned: true })).body.id;
    const useful = (await api("POST", "/experiences", { text: "old but useful lesson" })).body.id;
    const fresh = (await api("POST", "/experiences", { text: "fresh lesson" })).body.id;
    for (let i = 0; i < 30; i++) await api("POST", "/rewards", { memoryIds: [useful], outcome: "success" });
    for (const id of [old, pinned, useful]) await age(id, 180);
    const result = await valueOf(stub.sweep({ at: Date.now() }));
    expect(result.decayed).toEqual([old]);
    expect(result.versions).toHaveLength(1);
    const archived = await api("GET", `/experiences/${old}`);
    expect(archived.body.status).toBe("archived");
    for (const id of [pinned, useful, fresh]) expect((await api("GET", `/experiences/${id}`)).body.status).toBe("active");
    const version = result.versions[0]!;
    const v = await api("GET", `/library/versions/${version}`);
    expect(v.body.author).toBe("system:decay");
    await api("POST", "/library/rollback", { version: version - 1 });
    expect((await api("GET", `/experiences/${old}`)).body.status).toBe("active");
  });

  it("archives the lowest-utility unpinned experiences over capacity", async () => {
    const { api, stub } = await fixture();
    const ids: string[] = [];
    for (const [i, q] of [0.9, -0.5, 0.1, -0.9].entries()) {
      ids.push((await api("POST", "/experiences", { text: `lesson ${i}`, pinned: false })).body.id);
      await api("POST", "/rewards", { memoryIds: [ids[i]], reward: q });
    }
    await api("PATCH", `/experiences/${ids[3]}`, { pinned: true });
    await api("PATCH", "/config", { capacity: 2 });
    const result = await valueOf(stub.sweep({ at: Date.now() }));
    expect(result.decayed).toEqual([]);
    expect(result.overCapacity.sort()).toEqual([ids[1], ids[2]].sort());
    const active = await api("GET", "/experiences");
    expect(active.body.items.map((e: any) => e.id).sort()).toEqual([ids[0], ids[3]].sort());
    expect((await api("GET", "/library/versions")).body.items[0].author).toBe("system:capacity");
  });

  it("the cron sweep reaches agents through the queue job", async () => {
    const { api, t, agentId, age } = await fixture();
    const old = (await api("POST", "/experiences", { text: "stale lesson" })).body.id;
    await age(old, 365);
    const { jobHandlers } = await import("../../src/jobs/handlers");
    const { createLogger } = await import("../../src/core/logger");
    await jobHandlers["agent.sweep"]({ type: "agent.sweep", tenantId: t.tenantId, agentId, at: Date.now() }, env, createLogger(), {
      attempts: 1,
    });
    expect((await api("GET", `/experiences/${old}`)).body.status).toBe("archived");
  });
});
