import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import benchWorker, { benchBindings, parseLatency, type BenchEnv } from "../../bench/edge-worker";
import { probeCaches, probeEnv, type ProbedBinding } from "../../src/platform/objects/binding-probe";
import { forgetReadModels } from "../../src/platform/edge/read-pipeline";
import { agentFixture } from "../memory/setup";
import { newAgent, newTenant } from "../helpers";
import { WARM_READS } from "./probe";

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

  it("a read at the edge passes every round trip it makes, the location cache's included, through the probe", async () => {
    const f = await agentFixture();
    expect((await f.api("POST", "/experiences", { text: "Pin the container image digest before a rollout" })).status).toBe(201);
    const seen: string[] = [];
    const hooks = { before: (binding: ProbedBinding, op: string) => void seen.push(`${binding}.${op}`) };
    const original = caches;
    Object.defineProperty(globalThis, "caches", { value: probeCaches(original, hooks), configurable: true, writable: true });
    try {
      const bindings = probeEnv({ ...env, ...WARM_READS }, hooks);
      const read = async () => {
        const ctx = createExecutionContext();
        const res = await benchWorker.fetch(
          new Request(`http://praxis.test/v1/agents/${f.agentId}/retrieve`, {
            method: "POST",
            headers: { authorization: `Bearer ${f.t.apiKey}`, "content-type": "application/json" },
            body: JSON.stringify({ query: "container image digest" }),
          }),
          bindings,
          ctx,
        );
        const body = (await res.json()) as { servedFrom: string };
        await waitOnExecutionContext(ctx);
        return body.servedFrom;
      };
      forgetReadModels();
      expect(await read()).toBe("edge");
      // A fresh isolate looks in its location's cache, asks the object, and fills the cache after answering.
      expect(seen).toEqual(expect.arrayContaining(["CACHE.match", "AGENT_MEMORY.readModel", "CACHE.put"]));
      forgetReadModels();
      seen.length = 0;
      expect(await read()).toBe("edge");
      expect(seen.filter((s) => s === "CACHE.match").length).toBe(2);
    } finally {
      Object.defineProperty(globalThis, "caches", { value: original, configurable: true, writable: true });
    }
  });

  it("with a cache latency set, the isolate's Cache API is the probed one and still answers", async () => {
    const original = caches;
    try {
      benchBindings({ ...env, BENCH_LATENCY: "cache=1" });
      expect(caches).not.toBe(original);
      const cache = await caches.open("bench-latency-test");
      await cache.put("https://bench.invalid/x", new Response("kept", { headers: { "cache-control": "max-age=60" } }));
      expect(await (await cache.match("https://bench.invalid/x"))?.text()).toBe("kept");
    } finally {
      Object.defineProperty(globalThis, "caches", { value: original, configurable: true, writable: true });
    }
  });

  it("refuses a latency spec it cannot read", () => {
    expect(parseLatency("d1=80, do=40,kv=5,cache=2")).toEqual({ DB: 80, AGENT_MEMORY: 40, PRAXIS_KEYS: 5, CACHE: 2 });
    expect(() => parseLatency("d1=eighty")).toThrow(/BENCH_LATENCY/);
  });
});
