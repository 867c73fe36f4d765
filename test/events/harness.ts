import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { expect, vi } from "vitest";
import worker from "../../src/index";
import { verifySignature } from "../../src/core/webhook-signature";
import { call, holdQueueSends } from "../helpers";

export const RECEIVER = "https://hooks.example.com/praxis";

/** The jobs queue, held in the test: event messages are delivered by `pump`, through the real consumer. */
export function captureJobs() {
  const queued: { id: string; body: any; attempts: number }[] = [];
  let n = 0;
  const take = (body: any) => {
    if (String(body?.type).startsWith("event.")) queued.push({ id: `e${n++}`, body, attempts: 1 });
  };
  holdQueueSends(env.JOBS, take);

  /** Delivers what is queued until nothing is; a retried message goes back with attempts + 1. `duplicate` delivers each batch twice. */
  async function pump(opts: { duplicate?: boolean } = {}) {
    for (let round = 0; queued.length && round < 50; round++) {
      const batch = queued.splice(0, queued.length);
      for (let r = 0; r < (opts.duplicate ? 2 : 1); r++) {
        const mb = createMessageBatch(
          "praxis-jobs",
          batch.map((m) => ({ id: m.id, timestamp: new Date(), attempts: m.attempts, body: m.body })),
        );
        const ctx = createExecutionContext();
        await worker.queue(mb, env);
        const result = await getQueueResult(mb, ctx);
        if (r > 0) continue;
        for (const retry of result.retryMessages) {
          const m = batch.find((k) => k.id === retry.msgId)!;
          queued.push({ ...m, attempts: m.attempts + 1 });
        }
      }
    }
  }
  /** Delivers what is queued now as two batches at once, as two consumers given the same message would. */
  async function deliverTwiceAtOnce() {
    const batch = queued.splice(0, queued.length);
    await Promise.all(
      [0, 1].map(async (r) => {
        const mb = createMessageBatch(
          "praxis-jobs",
          batch.map((m) => ({ id: `${m.id}-${r}`, timestamp: new Date(), attempts: m.attempts, body: m.body })),
        );
        await worker.queue(mb, env);
        await getQueueResult(mb, createExecutionContext());
      }),
    );
  }
  return { queued, pump, deliverTwiceAtOnce };
}

export interface Received {
  body: any;
  headers: Headers;
  /** Whether the signature verified with the tenant's secret, as the receiver checks it. */
  verified: boolean;
}

/** The receiving endpoint behind the global fetch: answers with `answer(n)` for its n-th request (from 1). */
export function receiver(secret: () => string, answer: (n: number) => number = () => 200, delayMs = 0) {
  const got: Received[] = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url !== RECEIVER) throw new Error(`Unexpected outbound fetch to ${url}`);
    const raw = String(init?.body);
    const headers = new Headers(init?.headers);
    const check = await verifySignature(
      headers.get("x-praxis-signature"),
      secret() || "no secret known",
      raw,
      Math.floor(Date.now() / 1000),
    );
    got.push({ body: JSON.parse(raw), headers, verified: check.ok });
    const status = answer(got.length);
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    return new Response(status === 204 ? null : status < 300 ? "ok" : "receiver broke", { status });
  });
  return got;
}

/** A tenant with a webhook secret and one endpoint subscribed to `events`. */
export async function subscribed(t: { apiKey: string }, events: string[]) {
  const s = await call("POST", "/v1/webhook-secret", { key: t.apiKey });
  expect(s.status).toBe(201);
  const e = await call("POST", "/v1/events/endpoints", { key: t.apiKey, body: { url: RECEIVER, events } });
  expect(e.status, JSON.stringify(e.body)).toBe(201);
  return { secret: s.body.secret as string, endpointId: e.body.id as string };
}
