/**
 * The Worker as the edge bench serves it (`npm run bench -- --profile far-edge`: bench/edge.mjs
 * runs `wrangler dev bench/edge-worker.ts`): the production module, unchanged, with the bench's own
 * two variables, which nothing in src reads:
 *
 *   BENCH_LATENCY    "d1=80,do=40,kv=5,cache=2": ms of wait before each D1 query, Durable Object
 *                    call, KV read and location-cache operation (the Cache API), as a Worker far
 *                    from D1's primary and from the agent's object waits.
 *   BENCH_KEY_CACHE  "off": every request reads its key from D1, the path before the edge caches
 *                    (no KV namespace, and the isolate's keys forgotten before each request).
 *
 * and one route of its own, BENCH_READ_MODELS (a module exports only handlers and classes): GET answers the bytes the isolate's snapshots take
 * (as its LRU weighs them) and how many agents it holds; DELETE first forgets them all, so the
 * next read of one agent shows that agent's own weight.
 */
import type { Env } from "../src/env";
import worker from "../src/index";
import { probeCaches, probeEnv, type ProbedBinding } from "../src/platform/objects/binding-probe";
import { forgetCachedKeys } from "../src/platform/edge/key-store";
import { forgetReadModels, readModelsHeld } from "../src/platform/edge/read-pipeline";

export { AgentMemory, Evaluation, PracticeRun } from "../src/index";

export interface BenchEnv extends Env {
  BENCH_LATENCY?: string;
  BENCH_KEY_CACHE?: string;
}

const NAMES: Record<string, ProbedBinding> = { d1: "DB", do: "AGENT_MEMORY", kv: "PRAXIS_KEYS", cache: "CACHE" };
/** Writes to KV happen after the response (fills) or on rare changes; the profile delays reads. */
const KV_READS = new Set(["get", "getWithMetadata"]);

export function parseLatency(spec: string): Partial<Record<ProbedBinding, number>> {
  const out: Partial<Record<ProbedBinding, number>> = {};
  for (const part of spec.split(",")) {
    const m = /^\s*(d1|do|kv|cache)\s*=\s*(\d{1,5})\s*$/.exec(part);
    if (!m) throw new Error(`BENCH_LATENCY: cannot read "${part}"; write e.g. "d1=80,do=40,kv=5,cache=2"`);
    out[NAMES[m[1]!]!] = Number(m[2]);
  }
  return out;
}

const wait = (ms: number | undefined): Promise<void> | undefined => (ms ? new Promise((r) => setTimeout(r, ms)) : undefined);

/**
 * The Cache API is a global, not a binding: the isolate's `caches` is replaced once by one whose
 * operations wait the delay the latest request's BENCH_LATENCY names (one spec per server).
 */
let cacheDelayMs = 0;
let cachesProbed = false;
function delayCaches(ms: number): void {
  cacheDelayMs = ms;
  if (cachesProbed || !ms) return;
  cachesProbed = true;
  const probed = probeCaches(caches, { before: () => wait(cacheDelayMs) });
  Object.defineProperty(globalThis, "caches", { value: probed, configurable: true, writable: true });
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
    delayCaches(delays.CACHE ?? 0);
    out = probeEnv(out, {
      before: (binding, op) => (binding === "PRAXIS_KEYS" && !KV_READS.has(op) ? undefined : wait(delays[binding])),
    });
  }
  return out;
}

const BENCH_READ_MODELS = "/__bench/read-models";

export default {
  ...worker,
  fetch: (request: Request, env: BenchEnv, ctx: ExecutionContext) => {
    if (new URL(request.url).pathname === BENCH_READ_MODELS) {
      if (request.method === "DELETE") forgetReadModels();
      return Response.json(readModelsHeld(env));
    }
    return worker.fetch(request, benchBindings(env), ctx);
  },
} satisfies ExportedHandler<BenchEnv, unknown>;
