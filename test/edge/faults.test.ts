import { describe, expect, it } from "vitest";
import { expectProblem, newAgent, newTenant } from "../helpers";
import { coldKey, doError, probedWorker } from "./probe";

/** The faults Cloudflare documents for D1 and Durable Objects, injected at the bindings. */
async function fixture() {
  const t = await newTenant();
  const agentId = await newAgent(t.apiKey);
  const healthy = probedWorker();
  const added = await healthy.call("POST", `/v1/agents/${agentId}/experiences`, t.apiKey, {
    text: "Retry flaky npm installs with a clean cache",
  });
  expect(added.status).toBe(201);
  return { t, agentId, experienceId: added.body.id as string, healthy };
}

/** Fails the next `times` round trips of `binding.op` (op may be "*"), before or after they reach it. */
function faulty(binding: string, op: string, error: () => unknown, opts: { times?: number; when?: "before" | "after" } = {}) {
  let left = opts.times ?? 1;
  const hook = (b: string, o: string) => {
    if (b === binding && (op === "*" || o === op) && left > 0) {
      left--;
      throw error();
    }
  };
  return probedWorker(opts.when === "after" ? { after: hook } : { before: hook });
}

const D1_LOST = () => new Error("D1_ERROR: Network connection lost.");

describe("Durable Object faults", () => {
  it("a .retryable failure of a read is retried through a fresh stub and answers 200", async () => {
    const { t, agentId, experienceId } = await fixture();
    // A read at the edge asks the agent's object for its snapshot: that is the call that fails.
    const w = faulty("AGENT_MEMORY", "readModel", () => doError({ retryable: true }));
    const r = await w.call("POST", `/v1/agents/${agentId}/retrieve`, t.apiKey, { query: "npm install fails" });
    expect(r.status).toBe(200);
    expect(r.body.items.map((i: { id: string }) => i.id)).toEqual([experienceId]);
    expect(r.trips.AGENT_MEMORY).toBe(2);
  });

  it("a reward with an Idempotency-Key whose answer was lost is retried and counts once", async () => {
    const { t, agentId, experienceId, healthy } = await fixture();
    const retrieved = await healthy.call("POST", `/v1/agents/${agentId}/retrieve`, t.apiKey, { query: "npm install fails" });
    const w = faulty("AGENT_MEMORY", "reward", () => doError({ retryable: true }), { when: "after" });
    const r = await w.call(
      "POST",
      `/v1/agents/${agentId}/rewards`,
      t.apiKey,
      { retrievalId: retrieved.body.retrievalId, outcome: "success" },
      { "idempotency-key": "reward-once-1" },
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.trips.AGENT_MEMORY).toBe(2);
    const q = await healthy.call("GET", `/v1/agents/${agentId}/experiences/${experienceId}`, t.apiKey);
    expect(q.body.q).toBeCloseTo(0.5 + 0.1 * (1 - 0.5), 10);
  });

  it("a reward without an Idempotency-Key is not retried: 503 with Retry-After, and the client's retry applies it once", async () => {
    const { t, agentId, experienceId, healthy } = await fixture();
    const retrieved = await healthy.call("POST", `/v1/agents/${agentId}/retrieve`, t.apiKey, { query: "npm install fails" });
    const w = faulty("AGENT_MEMORY", "reward", () => doError({ retryable: true }));
    const r = await w.call("POST", `/v1/agents/${agentId}/rewards`, t.apiKey, {
      retrievalId: retrieved.body.retrievalId,
      outcome: "success",
    });
    expectProblem(r, 503, "service-unavailable");
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(r.trips.AGENT_MEMORY).toBe(1);
    expect((await healthy.call("GET", `/v1/agents/${agentId}/experiences/${experienceId}`, t.apiKey)).body.q).toBe(0.5);
    const again = await w.call("POST", `/v1/agents/${agentId}/rewards`, t.apiKey, {
      retrievalId: retrieved.body.retrievalId,
      outcome: "success",
    });
    expect(again.status).toBe(200);
    expect((await healthy.call("GET", `/v1/agents/${agentId}/experiences/${experienceId}`, t.apiKey)).body.q).toBeCloseTo(0.55, 10);
  });

  it("an .overloaded object is never retried: 503 with Retry-After", async () => {
    const { t, agentId } = await fixture();
    const w = faulty("AGENT_MEMORY", "readModel", () => doError({ overloaded: true, retryable: false }), { times: 5 });
    const r = await w.call("POST", `/v1/agents/${agentId}/retrieve`, t.apiKey, { query: "npm" });
    expectProblem(r, 503, "service-unavailable");
    expect(r.headers.get("retry-after")).toBeTruthy();
    expect(r.trips.AGENT_MEMORY).toBe(1);
  });

  it("a read that stays .retryable gives up after a few attempts with a 503, never a bare 500", async () => {
    const { t, agentId } = await fixture();
    const w = faulty("AGENT_MEMORY", "readModel", () => doError({ retryable: true }), { times: 10 });
    const r = await w.call("GET", `/v1/agents/${agentId}/prompt`, t.apiKey);
    expectProblem(r, 503, "service-unavailable");
    expect(r.trips.AGENT_MEMORY).toBe(3);
  });
});

describe("D1 faults", () => {
  it("a transient error on the key lookup (a read) is retried", async () => {
    const { t, agentId } = await fixture();
    await coldKey(t.apiKey);
    const w = faulty("DB", "*", D1_LOST);
    // Read through the object: a read at the edge would also check the key's revocation in D1.
    const r = await w.call("POST", `/v1/agents/${agentId}/retrieve`, t.apiKey, { query: "npm", consistency: "strong" });
    expect(r.status).toBe(200);
    // The failed read, its retry, and the KV fill's check of D1 after its write (platform/edge/key-store.ts fillKv).
    expect(r.trips.DB).toBe(3);
  });

  it("a read that keeps failing answers 503 with Retry-After", async () => {
    const { t, agentId } = await fixture();
    await coldKey(t.apiKey);
    const w = faulty("DB", "*", D1_LOST, { times: 10 });
    const r = await w.call("POST", `/v1/agents/${agentId}/retrieve`, t.apiKey, { query: "npm" });
    expectProblem(r, 503, "service-unavailable");
    expect(r.headers.get("retry-after")).toBeTruthy();
  });

  it("a transient error on a write that must not repeat answers 503 and changes nothing; the retry creates once", async () => {
    const { t, healthy } = await fixture();
    // The agent lookup passes; the insert after it fails once and is not repeated.
    let queries = 0;
    const w = probedWorker({
      before: (binding) => {
        if (binding === "DB" && ++queries === 2) throw D1_LOST();
      },
    });
    const r = await w.call("PUT", "/v1/agents/made-under-faults", t.apiKey, { displayName: "x" });
    expectProblem(r, 503, "service-unavailable");
    expectProblem(await healthy.call("GET", "/v1/agents/made-under-faults", t.apiKey), 404);
    const again = await healthy.call("PUT", "/v1/agents/made-under-faults", t.apiKey, { displayName: "x" });
    expect(again.status).toBe(201);
  });

  it("an error that is not transient (a constraint) is not retried", async () => {
    const { t, agentId } = await fixture();
    await coldKey(t.apiKey);
    const w = faulty("DB", "*", () => new Error("D1_ERROR: no such column: nope: SQLITE_ERROR"));
    const r = await w.call("POST", `/v1/agents/${agentId}/retrieve`, t.apiKey, { query: "npm" });
    expect(r.status).toBe(500);
    expect(r.trips.DB).toBe(1);
  });
});
