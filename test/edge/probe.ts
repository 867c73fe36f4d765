import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../src/index";
import { probeEnv, type ProbedBinding, type ProbeHooks } from "../../src/platform/objects/binding-probe";
import { sha256Hex } from "../../src/core/api-key";
import { forgetCachedKeys } from "../../src/platform/edge/key-store";
import type { Res } from "../helpers";

export type Trips = Record<ProbedBinding, number> & { ops: string[] };

const zero = (): Trips => ({ DB: 0, AGENT_MEMORY: 0, PRAXIS_KEYS: 0, CACHE: 0, ops: [] });

/**
 * The Worker called with its bindings wrapped: each request reports the round trips it made to D1,
 * the agents' Durable Objects and KV before its response (work left to waitUntil is not on the
 * request's path and is awaited separately). `faults` may throw or wait before/after a round trip;
 * `vars` override the test environment's variables (e.g. a staleness bound for reads at the edge).
 */
export function probedWorker(faults: ProbeHooks = {}, vars: Partial<typeof env> = {}) {
  let trips = zero();
  const penv = probeEnv(
    { ...env, ...vars },
    {
      before: async (binding, op) => {
        // Use counters reach an agent in one batch per window and isolate (src/platform/edge/retrieval-counters.ts),
        // not one call per request: listed, not counted.
        if (op !== "applyRetrievalCounts") trips[binding]++;
        trips.ops.push(`${binding}.${op}`);
        await faults.before?.(binding, op);
      },
      after: (binding, op) => faults.after?.(binding, op),
    },
  );

  async function fetch(request: Request): Promise<{ res: Response; trips: Trips }> {
    trips = zero();
    const ctx = createExecutionContext();
    const res = await worker.fetch(request, penv, ctx);
    const body = await res.arrayBuffer();
    const seen = trips;
    await waitOnExecutionContext(ctx);
    trips = zero();
    return { res: new Response(body, res), trips: seen };
  }

  async function call<T = any>(
    method: string,
    path: string,
    key: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Res<T> & { trips: Trips }> {
    const init: RequestInit = { method, headers: { authorization: `Bearer ${key}`, ...headers } };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      (init.headers as Record<string, string>)["content-type"] = "application/json";
    }
    const { res, trips: seen } = await fetch(new Request(`http://praxis.test${path}`, init));
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, body: parsed as T, trips: seen };
  }

  return { env: penv, fetch, call };
}

/** A fresh isolate that also misses KV: the next use of `apiKey` must read D1. */
export async function coldKey(apiKey: string): Promise<void> {
  forgetCachedKeys();
  await env.PRAXIS_KEYS!.delete(`key:${await sha256Hex(apiKey)}`);
}

/**
 * Reads at the edge serve a warm snapshot, asking the agent's object only every READ_STALENESS_MS
 * (the test environment sets 0: every read asks).
 */
export const WARM_READS = { READ_STALENESS_MS: "60000" };

/** A fresh isolate: the next use of a key reads KV (filled by an earlier cold use or a change). */
export function freshIsolate(): void {
  forgetCachedKeys();
}

/** A Durable Object error as the runtime raises it, with the flags Cloudflare documents. */
export function doError(flags: { retryable?: boolean; overloaded?: boolean }): Error {
  return Object.assign(new Error(flags.overloaded ? "Durable Object is overloaded." : "Network connection lost."), flags);
}
