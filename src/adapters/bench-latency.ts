import type { Env } from "../env";
import { probeEnv, type ProbedBinding } from "./binding-probe";

/**
 * The far-edge bench profile: every binding round trip made to wait as it would for a Worker far
 * from D1's primary and from the agent's object (`BENCH_LATENCY = "d1=80,do=40,kv=5"`, ms per D1
 * query, Durable Object call and KV read). Only a development or test deployment honours it; with
 * PRAXIS_ENV = "production", or unset (which means production), the bindings are left alone.
 */
export function benchProfileAllowed(env: Pick<Env, "PRAXIS_ENV">): boolean {
  return env.PRAXIS_ENV === "development" || env.PRAXIS_ENV === "test";
}

const NAMES: Record<string, ProbedBinding> = { d1: "DB", do: "AGENT_MEMORY", kv: "PRAXIS_KEYS" };
/** Writes to KV happen after the response (fills) or on rare changes; the profile delays reads. */
const KV_READS = new Set(["get", "getWithMetadata"]);

export function parseLatency(spec: string): Partial<Record<ProbedBinding, number>> {
  const out: Partial<Record<ProbedBinding, number>> = {};
  for (const part of spec.split(",")) {
    const m = /^\s*(d1|do|kv)\s*=\s*(\d{1,5})\s*$/.exec(part);
    if (!m) throw new Error(`BENCH_LATENCY: cannot read "${part}"; write e.g. "d1=80,do=40,kv=5"`);
    out[NAMES[m[1]!]!] = Number(m[2]);
  }
  return out;
}

export function withBenchLatency(env: Env): Env {
  if (!env.BENCH_LATENCY || !benchProfileAllowed(env)) return env;
  const delays = parseLatency(env.BENCH_LATENCY);
  return probeEnv(env, {
    before: async (binding, op) => {
      const ms = delays[binding];
      if (!ms || (binding === "PRAXIS_KEYS" && !KV_READS.has(op))) return;
      await new Promise((r) => setTimeout(r, ms));
    },
  });
}
