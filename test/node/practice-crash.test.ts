import { randomBytes } from "node:crypto";
import { afterAll, expect, it } from "vitest";
import { devServer } from "../../bench/lib/dev-server.mjs";
import { practiceTasks, startPracticeLlm, type PracticeLlm, type ReceivedCall } from "../../bench/lib/practice-llm.mjs";

/**
 * kill -9 of the whole runtime (wrangler dev's process group) while a practice run's LLM calls are
 * in flight, then a restart on the same state. The fake LLM holds every request from the run's 4th
 * rollout on, so the kill always cuts calls off after the provider received them: the case a ledger
 * written after the answer loses. The resume delay is a benchmark figure (bench/practice-crash.mjs).
 */

const TASKS = 4;
const G = 2;
const CONCURRENCY = 2;
const TERMINAL = ["completed", "failed", "cancelled", "budget-exhausted"];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const server = devServer({ tmpPrefix: "praxis-crash-test-" });
let fake: PracticeLlm | null = null;
afterAll(async () => {
  await server.cleanup();
  await fake?.close();
});

async function call(base: string, method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Polls until `done` or `tries` run out (a bound on the loop, not a timing assertion). */
async function until<T>(what: string, probe: () => Promise<T> | T, done: (v: T) => boolean, tries: number, everyMs: number): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < tries; i++) {
    last = await probe();
    if (done(last)) return last;
    await sleep(everyMs);
  }
  throw new Error(`${what}: still ${JSON.stringify(last)}`);
}

const keysOf = (calls: ReceivedCall[]) => {
  const n = new Map<string, number>();
  for (const c of calls) n.set(c.key, (n.get(c.key) ?? 0) + 1);
  return n;
};

it("a run killed with LLM calls in flight completes after a restart, with every call the LLM received in the ledger exactly once", {
  timeout: 300_000,
}, async () => {
  fake = await startPracticeLlm({ latencyMs: 5 });
  const adminKey = `pxadmin_${randomBytes(18).toString("base64url")}`;
  const vars = {
    PRAXIS_ADMIN_KEY: adminKey,
    LOG_LEVEL: "warn",
    LLM_BASE_URL: fake.baseUrl,
    LLM_MODEL: "fake",
    LLM_API_KEY: "x",
    LLM_MAX_RETRIES: "0",
  };
  let { base } = await server.start({ firstPort: 9100 + Math.floor(Math.random() * 800), vars });

  const tenant = await call(base, "POST", "/v1/tenants", adminKey, { name: `crash test ${Date.now().toString(36)}` });
  expect(tenant.status).toBe(201);
  const token: string = tenant.body.apiKey;
  expect((await call(base, "PUT", "/v1/agents/crash", token, { displayName: "crash test" })).status).toBeLessThan(300);
  const ds = await call(base, "POST", "/v1/datasets", token, { name: "crash", holdoutFraction: 0, tasks: practiceTasks(TASKS) });
  expect(ds.status).toBe(201);

  let rollouts = 0;
  const holding = fake.holdWhen((c) => c.stage === "rollout" && ++rollouts === 4);
  const run = await call(base, "POST", "/v1/agents/crash/practice-runs", token, {
    datasetId: ds.body.datasetId,
    epochs: 1,
    batchSize: TASKS,
    groupSize: G,
    concurrency: CONCURRENCY,
    seed: 7,
    policy: { kind: "llm" },
  });
  expect(run.status).toBe(202);
  const runId: string = run.body.runId;

  await Promise.race([holding, sleep(120_000).then(() => Promise.reject(new Error("the run never reached its 4th rollout")))]);
  // Let every call already on its way arrive (and be held), so none sits between its ledger row and its request at the kill.
  await until(
    "LLM traffic before the kill",
    () => fake!.quietMs(),
    (q) => q >= 500,
    200,
    100,
  );
  const firstLife = fake.received.length;
  ({ base } = await server.restart({ signal: "SIGKILL" }));
  const { cutOff, passed } = fake.release();
  expect(cutOff.length).toBeGreaterThanOrEqual(1);

  const view = await until(
    "the run after the restart",
    async () => (await call(base, "GET", `/v1/agents/crash/practice-runs/${runId}`, token)).body,
    (v) => TERMINAL.includes(v?.status),
    600,
    250,
  );
  expect(view.status).toBe("completed");
  expect(view.progress.rollouts).toEqual({ done: TASKS * G, total: TASKS * G });
  // Whatever the run set off afterwards (the safety review of its lessons) has been sent and answered.
  await until(
    "LLM traffic after the run",
    () => fake!.quietMs(),
    (q) => q >= 2000,
    100,
    250,
  );

  const usage = (await call(base, "GET", "/v1/usage", token)).body.totals;
  // Each call the LLM received is in the ledger once; those the kill cut off stay open, at their estimate.
  expect(usage.calls).toBe(fake.received.length);
  expect(usage.openCalls).toBe(cutOff.length);
  expect(usage.estimatedCalls).toBe(cutOff.length);

  // Within one life of the runtime no call is made twice; across the crash, only the calls of units
  // in flight at the kill (at most `concurrency`, one call each) are made again once their lease lapses.
  const passedSet = new Set(passed);
  const before = fake.received.slice(0, firstLife).filter((c) => !passedSet.has(c));
  const after = [...passed, ...fake.received.slice(firstLife)];
  const once = keysOf(before);
  const again = keysOf(after);
  expect([...once.values()].every((n) => n === 1)).toBe(true);
  expect([...again.values()].every((n) => n === 1)).toBe(true);
  const repeated = [...again.keys()].filter((k) => once.has(k));
  for (const c of cutOff) expect(again.get(c.key)).toBe(1);
  expect(repeated.length).toBeLessThanOrEqual(CONCURRENCY);
});
