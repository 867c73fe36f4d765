import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { UnitLedger } from "../../durable-objects/unit-ledger";
import { LEASE_MS, MAX_LAPSES, SENT_TIMEOUT_MS } from "../../src/core/practice/unit-timing";
import { LLM_ENV } from "../fake-llm";
import { ARITHMETIC, api, captureQueues, practiceFixture, practiceLlm, startRun } from "./harness";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** Runs `fn` against a real unit ledger in a fresh Evaluation Durable Object's storage, with a hand-moved clock. */
async function withLedger(fn: (ledger: UnitLedger, clock: { t: number }) => void) {
  const stub = env.EVALUATION.getByName(`ledger-${crypto.randomUUID()}`);
  await runInDurableObject(stub, (_instance, state) => {
    const clock = { t: 1_000_000 };
    state.storage.transactionSync(() => fn(new UnitLedger(state.storage.sql, () => clock.t), clock));
  });
}

const add = (ledger: UnitLedger, n: number) =>
  Array.from({ length: n }, (_, i) => (ledger.create(`u${i}`, { task: i, sample: 0, stage: "rollout" }), `u${i}`));
const statusOf = (ledger: UnitLedger, key: string) => ledger.unit(key)!.status;

describe("the unit ledger", () => {
  it("dispatches within the concurrency, counting awaiting units, and hands over only into free room", () =>
    withLedger((ledger) => {
      add(ledger, 5);
      expect(ledger.dispatch(2)).toEqual(["u0", "u1"]);
      expect(ledger.dispatch(2)).toEqual([]);
      const c = ledger.claim("u0", 600_000);
      expect(c.status).toBe("run");
      ledger.toAwaiting("u0", 3_600_000);
      // An awaiting unit keeps its slot: nothing more goes out, nothing is handed over.
      expect(ledger.dispatch(2)).toEqual([]);
      expect(ledger.takeNext(2, () => 600_000)).toBeNull();
      expect(ledger.finish("u0", "{}", null)).toBe(true);
      expect(ledger.finish("u0", "{}", null)).toBe(false);
      expect(ledger.takeNext(2, () => 600_000)).toMatchObject({ key: "u2", lease: 1 });
      expect(ledger.inFlight()).toBe(2);
      expect(ledger.dispatch(2)).toEqual([]);
    }));

  it("claims only a dispatched unit, once, under a numbered lease", () =>
    withLedger((ledger) => {
      add(ledger, 2);
      expect(ledger.claim("u0", 600_000)).toEqual({ status: "void" });
      expect(ledger.claim("nope", 600_000)).toEqual({ status: "void" });
      ledger.dispatch(1);
      expect(ledger.claim("u0", 600_000)).toEqual({ status: "run", lease: 1 });
      expect(ledger.claim("u0", 600_000)).toEqual({ status: "busy" });
      // A released unit is claimable again by the queue's retry, under the next lease; the old lease is void.
      ledger.release("u0", 1);
      expect(statusOf(ledger, "u0")).toBe("sent");
      expect(ledger.claim("u0", 600_000)).toEqual({ status: "run", lease: 2 });
      ledger.release("u0", 1);
      expect(statusOf(ledger, "u0")).toBe("running");
      expect(ledger.heartbeat("u0", 1)).toBe(false);
      ledger.finish("u0", "{}", null);
      expect(ledger.claim("u0", 600_000)).toEqual({ status: "done" });
    }));

  it("a heartbeat keeps a long unit held past many leases, but never past its work deadline", () =>
    withLedger((ledger, clock) => {
      add(ledger, 1);
      ledger.dispatch(1);
      const workMs = 20 * 60_000;
      ledger.claim("u0", workMs);
      const start = clock.t;
      while (clock.t - start < workMs - LEASE_MS) {
        clock.t += LEASE_MS - 1000;
        expect(ledger.heartbeat("u0", 1)).toBe(true);
        expect(ledger.sweep()).toEqual({ timedOut: [], exhausted: [] });
        expect(statusOf(ledger, "u0")).toBe("running");
      }
      clock.t = start + workMs;
      expect(ledger.heartbeat("u0", 1)).toBe(false);
      ledger.sweep();
      expect(ledger.unit("u0")).toMatchObject({ status: "pending", lapses: 1 });
    }));

  it("a lapsed lease goes back to pending and counts; an unclaimed send does not; the last lapse is handed to the owner", () =>
    withLedger((ledger, clock) => {
      add(ledger, 2);
      ledger.dispatch(2);
      ledger.claim("u0", 600_000);
      expect(ledger.nextWake()).toBe(clock.t + LEASE_MS);
      clock.t += LEASE_MS;
      expect(ledger.sweep()).toEqual({ timedOut: [], exhausted: [] });
      expect(ledger.unit("u0")).toMatchObject({ status: "pending", lapses: 1 });
      expect(ledger.unit("u1")).toMatchObject({ status: "sent", lapses: 0 });
      clock.t += SENT_TIMEOUT_MS;
      ledger.sweep();
      expect(ledger.unit("u1")).toMatchObject({ status: "pending", lapses: 0 });
      for (let i = 0; i < 10; i++) {
        ledger.dispatch(2);
        clock.t += SENT_TIMEOUT_MS;
        ledger.sweep();
      }
      // Ten lost messages later, nothing is exhausted: only lapsed leases count.
      expect(ledger.unit("u1")).toMatchObject({ status: "pending", lapses: 0, sends: 11 });
      let exhausted: { key: string; lapses: number }[] = [];
      for (let lapse = 2; lapse <= MAX_LAPSES; lapse++) {
        ledger.dispatch(1);
        ledger.claim("u0", 600_000);
        clock.t += LEASE_MS;
        exhausted = ledger.sweep().exhausted;
      }
      expect(exhausted).toEqual([{ key: "u0", lapses: MAX_LAPSES }]);
    }));

  it("an awaiting unit times out at its own deadline, reported to the owner", () =>
    withLedger((ledger, clock) => {
      add(ledger, 1);
      ledger.dispatch(1);
      ledger.claim("u0", 600_000);
      ledger.toAwaiting("u0", 3_600_000);
      clock.t += 3_599_999;
      expect(ledger.sweep().timedOut).toEqual([]);
      clock.t += 1;
      expect(ledger.sweep().timedOut).toEqual(["u0"]);
    }));
});

const AGENT_URL = "http://agent.test/rollout";

describe("practice runs on the ledger", () => {
  it("a webhook policy answering 202 with concurrency 2 never has more than 2 rollouts in flight", async () => {
    const f = await practiceFixture(ARITHMETIC);
    expect((await api("POST", "/v1/webhook-secret", f.t.apiKey)).status).toBe(201);
    const q = captureQueues();
    const llm = practiceLlm();
    const real = llm.spy.getMockImplementation()!;
    const open = new Map<string, string>();
    let maxInFlight = 0;
    let calls = 0;
    llm.spy.mockImplementation(async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url.startsWith(LLM_ENV.LLM_BASE_URL)) return real(input, init);
      calls++;
      const body = JSON.parse(String(init?.body));
      open.set(body.rolloutId, body.resultSecret);
      maxInFlight = Math.max(maxInFlight, open.size);
      return new Response(null, { status: 202 });
    });
    const runId = await startRun(f, {
      epochs: 1,
      batchSize: 4,
      groupSize: 3,
      seed: 5,
      concurrency: 2,
      policy: { kind: "webhook", url: AGENT_URL, timeoutMs: 60_000 },
    });
    let n = 0;
    for (let round = 0; round < 20 && calls < 12; round++) {
      await q.pump();
      for (const [id, secret] of [...open]) {
        const r = await api(
          "POST",
          `/v1/practice/rollouts/${id}/result`,
          f.t.apiKey,
          { answer: n++ % 2 ? "42" : "41" },
          { "x-praxis-rollout-secret": secret },
        );
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        open.delete(id);
      }
    }
    await q.pump();
    expect(calls).toBe(12);
    expect(maxInFlight).toBe(2);
    expect((await f.agent("GET", `/practice-runs/${runId}`)).body.status).toBe("completed");
  });

  it("a consumer that dies holding a unit loses it within one lease: the alarm sends it again and the run finishes", async () => {
    const f = await practiceFixture(ARITHMETIC.slice(0, 2));
    const q = captureQueues();
    const llm = practiceLlm();
    const runId = await startRun(f, { epochs: 1, batchSize: 2, groupSize: 3, seed: 7 });
    const stub = env.PRACTICE_RUN.getByName(runId);
    const first = q.queued.shift()!;
    // The consumer claims, then its runtime dies: no report, no heartbeat, no release.
    const claim = await stub.claim({ key: first.body.key });
    expect(claim.status).toBe("run");
    // Its message is redelivered (or duplicated): the unit is held, so no second call is made.
    expect(await stub.claim({ key: first.body.key })).toEqual({ status: "busy" });
    await q.pump();
    expect((await f.agent("GET", `/practice-runs/${runId}`)).body.status).toBe("running");
    const before = llm.count("rollout");

    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + LEASE_MS + 1000);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(q.queued.map((m) => m.body.key)).toEqual([first.body.key]);
    await q.pump();
    vi.useRealTimers();
    expect((await f.agent("GET", `/practice-runs/${runId}`)).body.status).toBe("completed");
    expect(llm.count("rollout") - before).toBe(1);
    expect(llm.count("rollout")).toBe(6);
  });
});
