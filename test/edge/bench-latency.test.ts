import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { parseLatency, withBenchLatency } from "../../src/adapters/bench-latency";
import { newTenant } from "../helpers";

describe("the far-edge bench profile", () => {
  it("can never be enabled in production: PRAXIS_ENV production or unset leaves the bindings alone", () => {
    for (const PRAXIS_ENV of ["production", undefined, "staging"]) {
      const e = { ...env, PRAXIS_ENV, BENCH_LATENCY: "d1=80,do=40,kv=5" } as typeof env;
      const out = withBenchLatency(e);
      expect(out).toBe(e);
      expect(out.DB).toBe(env.DB);
    }
  });

  it("wraps the bindings in development, and they still answer", async () => {
    await newTenant();
    const e = withBenchLatency({ ...env, PRAXIS_ENV: "development", BENCH_LATENCY: "d1=1,do=1,kv=1" } as typeof env);
    expect(e.DB).not.toBe(env.DB);
    expect(e.AGENT_MEMORY).not.toBe(env.AGENT_MEMORY);
    expect(await e.DB.prepare("SELECT 7 AS n").first("n")).toBe(7);
  });

  it("refuses a spec it cannot read", () => {
    expect(parseLatency("d1=80, do=40,kv=5")).toEqual({ DB: 80, AGENT_MEMORY: 40, PRAXIS_KEYS: 5 });
    expect(() => parseLatency("d1=eighty")).toThrow(/BENCH_LATENCY/);
  });
});
