import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sha256Hex } from "../../src/core/api-key";
import { fromBase64url } from "../../src/core/encoding";
import { LLM_ENV } from "../fake-llm";
import { expectProblem, newKey } from "../helpers";
import { ARITHMETIC, api, captureQueues, practiceFixture, practiceLlm, startRun } from "./harness";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const AGENT_URL = "http://agent.test/rollout";

/** A run whose webhook policy answers every rollout with 202; returns the dispatches the agent received. */
async function awaitingRun(timeoutMs = 60_000) {
  const f = await practiceFixture(ARITHMETIC.slice(1, 2));
  expect((await api("POST", "/v1/webhook-secret", f.t.apiKey)).status).toBe(201);
  const q = captureQueues();
  const llm = practiceLlm();
  const real = llm.spy.getMockImplementation()!;
  const dispatches: { rolloutId: string; resultSecret: string }[] = [];
  llm.spy.mockImplementation(async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url.startsWith(LLM_ENV.LLM_BASE_URL)) return real(input, init);
    dispatches.push(JSON.parse(String(init?.body)));
    return new Response(null, { status: 202 });
  });
  const runId = await startRun(f, {
    epochs: 1,
    batchSize: 1,
    groupSize: 3,
    seed: 3,
    policy: { kind: "webhook", url: AGENT_URL, timeoutMs },
  });
  await q.pump();
  expect(dispatches).toHaveLength(3);
  const post = (rolloutId: string, body: unknown, secret?: string | null, key = f.t.apiKey) =>
    api("POST", `/v1/practice/rollouts/${rolloutId}/result`, key, body, secret ? { "x-praxis-rollout-secret": secret } : {});
  return { f, q, runId, dispatches, post };
}

describe("webhook rollout results come only from the rollout's holder", () => {
  it("each dispatch carries its own secret of >= 128 random bits and an unguessable id", async () => {
    const { runId, dispatches } = await awaitingRun();
    const ids = new Set(dispatches.map((d) => d.rolloutId));
    const secrets = new Set(dispatches.map((d) => d.resultSecret));
    expect(ids.size).toBe(3);
    expect(secrets.size).toBe(3);
    for (const d of dispatches) {
      expect(fromBase64url(d.resultSecret).length * 8).toBeGreaterThanOrEqual(128);
      const tail = d.rolloutId.slice(d.rolloutId.lastIndexOf(".") + 1);
      expect(fromBase64url(tail).length * 8).toBeGreaterThanOrEqual(128);
      expect(d.rolloutId.startsWith(`${runId}.e0.s0.t0.r`)).toBe(true);
    }
    // Only the secret's hash is stored.
    const stored = await runInDurableObject(env.PRACTICE_RUN.getByName(runId), (_i, state) =>
      state.storage.sql
        .exec<{ secret_hash: string; dump: string }>(
          "SELECT secret_hash, json_object('r', result, 'e', error, 'h', secret_hash, 'd', dispatch_id) AS dump FROM units WHERE stage = 'rollout' ORDER BY seq",
        )
        .toArray(),
    );
    for (const [i, d] of dispatches.entries()) {
      expect(stored[i]!.secret_hash).toBe(await sha256Hex(d.resultSecret));
      expect(stored[i]!.dump).not.toContain(d.resultSecret);
    }
  });

  it("a missing or wrong secret is a 401, a guessed or unknown id a 404; nothing is recorded", async () => {
    const { f, runId, dispatches, post } = await awaitingRun();
    const [a, b] = dispatches;
    expectProblem(await post(a!.rolloutId, { answer: "42" }), 401, "unauthorized");
    expectProblem(await post(a!.rolloutId, { answer: "42" }, "x".repeat(43)), 401, "unauthorized");
    expectProblem(await post(a!.rolloutId, { answer: "42" }, b!.resultSecret), 401, "unauthorized");
    expectProblem(await post(`${runId}.e0.s0.t0.r0`, { answer: "42" }, a!.resultSecret), 404, "not-found");
    const forged = a!.rolloutId.replace(/\.[^.]+$/, ".AAAAAAAAAAAAAAAAAAAAAA");
    expectProblem(await post(forged, { answer: "42" }, a!.resultSecret), 404, "not-found");
    // Another tenant holding the secret still cannot reach the rollout.
    const { t: other } = await practiceFixture(ARITHMETIC.slice(0, 1));
    expectProblem(await post(a!.rolloutId, { answer: "42" }, a!.resultSecret, other.apiKey), 404, "not-found");
    const rollouts = (await f.agent("GET", `/practice-runs/${runId}/rollouts`)).body.items;
    expect(rollouts.every((r: any) => r.answer === null || r.answer === undefined)).toBe(true);
    const { apiKey: key } = await newKey(f.t.apiKey, "write");
    expect((await post(a!.rolloutId, { answer: "42" }, a!.resultSecret, key)).body.status).toBe("accepted");
  });

  it("an identical repeat is idempotent, a different result a 409; after the deadline a 409", async () => {
    const { f, runId, dispatches, post } = await awaitingRun(5000);
    const [a, b, c] = dispatches;
    expect((await post(a!.rolloutId, { answer: "42", trajectory: "t" }, a!.resultSecret)).body).toMatchObject({ status: "accepted" });
    expect((await post(a!.rolloutId, { answer: "42", trajectory: "t" }, a!.resultSecret)).body).toMatchObject({ status: "duplicate" });
    expectProblem(await post(a!.rolloutId, { answer: "41", trajectory: "t" }, a!.resultSecret), 409, "conflict");
    expect((await post(b!.rolloutId, { answer: "41" }, b!.resultSecret)).status).toBe(200);

    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 6000);
    // Past its deadline, before the alarm has looked: expired.
    expectProblem(await post(c!.rolloutId, { answer: "42" }, c!.resultSecret), 409, "conflict");
    await runDurableObjectAlarm(env.PRACTICE_RUN.getByName(runId));
    // Timed out and recorded as such: still refused.
    expectProblem(await post(c!.rolloutId, { answer: "42" }, c!.resultSecret), 409, "conflict");
    const rollouts = (await f.agent("GET", `/practice-runs/${runId}/rollouts`)).body.items;
    expect(rollouts.map((r: any) => r.reward)).toEqual([1, 0, 0]);
    expect(rollouts[2].error).toMatch(/timeout/);
  });

  it("a cancelled run takes no more results", async () => {
    const { f, runId, dispatches, post } = await awaitingRun();
    expect((await f.agent("POST", `/practice-runs/${runId}/cancel`)).status).toBe(200);
    expectProblem(await post(dispatches[0]!.rolloutId, { answer: "42" }, dispatches[0]!.resultSecret), 409, "conflict");
  });

  it("a result for a rollout of an llm-policy run is a 404, whatever id is tried", async () => {
    const f = await practiceFixture(ARITHMETIC.slice(1, 2));
    const q = captureQueues();
    practiceLlm();
    const runId = await startRun(f, { epochs: 1, batchSize: 1, groupSize: 2, seed: 3 });
    await q.deliverOnce({ max: 1 });
    for (const id of [
      `${runId}.e0.s0.t0.r0`,
      `${runId}.e0.s0.t0.r0.AAAAAAAAAAAAAAAAAAAAAA`,
      `${runId}.e0.s0.t0.r1.AAAAAAAAAAAAAAAAAAAAAA`,
    ]) {
      expectProblem(
        await api(
          "POST",
          `/v1/practice/rollouts/${id}/result`,
          f.t.apiKey,
          { answer: "42" },
          { "x-praxis-rollout-secret": "AAAAAAAAAAAAAAAAAAAAAA" },
        ),
        404,
        "not-found",
      );
    }
  });
});
