import { env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { valueOf } from "../helpers";

describe("AgentMemory durability", () => {
  it("keeps its data across a new stub and an eviction", async () => {
    const name = `t_persist:agent-${crypto.randomUUID()}`;
    const first = env.AGENT_MEMORY.getByName(name);
    await first.registerAgent();
    await valueOf(first.patchConfig({ alpha: 0.33, lambda: { action: 0.9 } }));

    const second = env.AGENT_MEMORY.getByName(name);
    expect((await valueOf(second.getConfig())).alpha).toBe(0.33);

    await evictDurableObject(second);
    const third = env.AGENT_MEMORY.getByName(name);
    const cfg = await valueOf(third.getConfig());
    expect(cfg.alpha).toBe(0.33);
    expect(cfg.lambda.action).toBe(0.9);
    expect(cfg.lambda.planning).toBe(0.7);
  });

  it("creates and versions its schema when its agent is created", async () => {
    const stub = env.AGENT_MEMORY.getByName(`t_schema:agent-${crypto.randomUUID()}`);
    await stub.registerAgent();
    const version = await runInDurableObject(
      stub,
      (_i, state) => state.storage.sql.exec<{ version: number }>("SELECT version FROM _schema").one().version,
    );
    expect(version).toBeGreaterThanOrEqual(1);
  });

  it("keeps one stored config per agent (names are isolated)", async () => {
    const a = env.AGENT_MEMORY.getByName(`t_iso:a-${crypto.randomUUID()}`);
    const b = env.AGENT_MEMORY.getByName(`t_iso:b-${crypto.randomUUID()}`);
    await Promise.all([a.registerAgent(), b.registerAgent()]);
    await valueOf(a.patchConfig({ k2: 9 }));
    expect((await valueOf(b.getConfig())).k2).toBe(5);
  });
});
