/**
 * The Worker as the edge bench serves it (`npm run bench -- --profile far-edge`: bench/edge.mjs
 * runs `wrangler dev bench/edge-worker.ts`): the production module, unchanged, with the bench's own
 * two variables, which nothing in src reads:
 *
 *   BENCH_LATENCY    "d1=80,do=40,kv=5": ms of wait before each D1 query, Durable Object call and
 *                    KV read, as a Worker far from D1's primary and from the agent's object waits.
 *   BENCH_KEY_CACHE  "off": every request reads its key from D1, the path before the edge caches
 *                    (no KV namespace, and the isolate's keys forgotten before each request).
 */
import type { Env } from "../src/env";
import worker from "../src/index";
import { probeEnv, type ProbedBinding } from "../src/adapters/binding-probe";
import { forgetCachedKeys } from "../src/platform/edge/key-store";

export { AgentMemory, Evaluation, PracticeRun } from "../src/index";

export interface BenchEnv extends Env {
  BENCH_LATENCY?: string;
  BENCH_KEY_CACHE?: string;
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

/** The bindings one request of the bench sees. */
export function benchBindings(env: BenchEnv): Env {
  let out: Env = env;
  if (env.BENCH_KEY_CACHE === "off") {
    forgetCachedKeys();
    out = { ...out, PRAXIS_KEYS: undefined };
  }
  if (env.BENCH_LATENCY) {
    const delays = parseLatency(env.BENCH_LATENCY);
    out = probeEnv(out, {
      before: async (binding, op) => {
        const ms = delays[binding];
        if (!ms || (binding === "PRAXIS_KEYS" && !KV_READS.has(op))) return;
        await new Promise((r) => setTimeout(r, ms));
      },
    });
  }
  return out;
}

export default {
  ...worker,
  fetch: (request: Request, env: BenchEnv, ctx: ExecutionContext) => worker.fetch(request, benchBindings(env), ctx),
} satisfies ExportedHandler<BenchEnv, unknown>;
