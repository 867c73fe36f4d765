import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import benchWorker, { benchBindings, parseLatency, type BenchEnv } from "../../bench/edge-worker";
import { probeEnv } from "../../src/adapters/binding-probe";
import { newAgent, newTenant } from "../helpers";

describe("the edge bench's entry module (bench/edge-worker.ts)", () => {
  it("wraps the bindings only when BENCH_LATENCY is set, and they still answer", async () => {
    await newTenant();
    expect(benchBindings(env).DB).toBe(env.DB);
    const e = benchBindings({ ...env, BENCH_LATENCY: "d1=1,do=1,kv=1" });
    expect(e.DB).not.toBe(env.DB);
    expect(e.AGENT_MEMORY).not.toBe(env.AGENT_MEMORY);
    expect(await e.DB.prepare("SELECT 7 AS n").first("n")).toBe(7);
  });

  it("with BENCH_KEY_CACHE=off every request reads its key from D1, as before the edge caches", async () => {
    const t = await newTenant();
    const agentId = await newAgent(t.apiKey);
    let d1 = 0;
    const counted = probeEnv(env, { before: (binding) => void (binding === "DB" && d1++) });
    const get = async (bindings: BenchEnv) => {
      d1 = 0;
      const ctx = createExecutionContext();
      const res = await benchWorker.fetch(
        new Request(`http://praxis.test/v1/agents/${agentId}/prompt?query=x`, { headers: { authorization: `Bearer ${t.apiKey}` } }),
        bindings,
        ctx,
      );
      expect(res.status).toBe(200);
      await waitOnExecutionContext(ctx);
      return d1;
    };
    // What a warm request reads from D1 besides its key (an edge read may re-check revocations) is
    // the baseline: with the key caches off, each request adds exactly its key lookup to it.
    await get(counted);
    const warm = await get(counted);
    const off = { ...counted, BENCH_KEY_CACHE: "off" };
    expect([await get(off), await get(off)]).toEqual([warm + 1, warm + 1]);
  });

  it("refuses a latency spec it cannot read", () => {
    expect(parseLatency("d1=80, do=40,kv=5")).toEqual({ DB: 80, AGENT_MEMORY: 40, PRAXIS_KEYS: 5 });
    expect(() => parseLatency("d1=eighty")).toThrow(/BENCH_LATENCY/);
  });
});
