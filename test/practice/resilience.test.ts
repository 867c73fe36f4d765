import { env, evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ARITHMETIC, api, captureQueues, practiceFixture, practiceLlm, startRun } from "./harness";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const RUN = { epochs: 2, batchSize: 2, groupSize: 3, seed: 7 };

async function finalState(f: Awaited<ReturnType<typeof practiceFixture>>, runId: string) {
  const run = await f.agent("GET", `/practice-runs/${runId}`);
  const lib = await f.agent("GET", `/practice-runs/${runId}/library`);
  const usage = await api("GET", "/v1/usage?groupBy=purpose", f.t.apiKey);
  return {
    status: run.body.status,
    // Ids of added experiences carry the run id; everything else must match exactly.
    library: lib.body.items.map((e: any) => ({ label: e.label, text: e.text, lineage: e.lineage })),
    usage: Object.fromEntries(usage.body.groups.map((g: any) => [g.key, [g.calls, g.tokensIn, g.tokensOut]])),
    rewards: run.body.trainReward,
  };
}

async function referenceRun() {
  const f = await practiceFixture(ARITHMETIC);
  const q = captureQueues();
  const llm = practiceLlm();
  const runId = await startRun(f, RUN);
  await q.pump();
  const state = await finalState(f, runId);
  vi.restoreAllMocks();
  return { state, calls: llm.sent.length };
}

describe("practice run resilience", () => {
  it("every message delivered twice gives the same library and the same ledger totals", async () => {
    const ref = await referenceRun();
    expect(ref.state.status).toBe("completed");
    expect(ref.state.library.length).toBeGreaterThan(0);

    const f = await practiceFixture(ARITHMETIC);
    const q = captureQueues();
    const llm = practiceLlm();
    const runId = await startRun(f, RUN);
    await q.pump({ duplicate: true });
    expect(llm.sent.length).toBe(ref.calls);
    expect(await finalState(f, runId)).toEqual(ref.state);
  });

  it("an eviction and lost messages in the middle of a step resume to the same final library", async () => {
    const ref = await referenceRun();

    const f = await practiceFixture(ARITHMETIC);
    const q = captureQueues();
    practiceLlm();
    const runId = await startRun(f, RUN);
    const stub = env.PRACTICE_RUN.getByName(runId);
    await q.deliverOnce({ max: 3 });
    await evictDurableObject(stub);
    // The rest of this step's rollouts are lost with the eviction.
    const lost = await q.deliverOnce({ drop: () => true });
    expect(lost).toBeGreaterThan(0);
    expect(q.queued).toHaveLength(0);
    const stalled = await f.agent("GET", `/practice-runs/${runId}`);
    expect(stalled.body.status).toBe("running");

    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 11 * 60_000);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(q.queued.length).toBeGreaterThan(0);
    await q.pump();
    expect(await finalState(f, runId)).toMatchObject({ status: "completed", library: ref.state.library, rewards: ref.state.rewards });
  });

  it("a rollout whose consumer keeps failing is retried, then scored 0 with its reason, and the run goes on", async () => {
    const f = await practiceFixture(ARITHMETIC.slice(0, 2));
    const q = captureQueues();
    const llm = practiceLlm();
    let failures = 0;
    const real = llm.spy.getMockImplementation()!;
    llm.spy.mockImplementation(async (input, init) => {
      const body = JSON.parse(String(init?.body));
      if (!body.response_format && body.messages.at(-1).content.includes("6 * 7") && body.seed % 2 === 0) {
        failures++;
        return new Response(JSON.stringify({ error: { message: "upstream down" } }), {
          status: 500,
          headers: { "content-type": "application/json", "retry-after-ms": "1" },
        });
      }
      return real(input, init);
    });
    const runId = await startRun(f, { epochs: 1, batchSize: 2, groupSize: 3, seed: 7 });
    await q.pump();
    const run = await f.agent("GET", `/practice-runs/${runId}`);
    expect(run.body.status).toBe("completed");
    expect(failures).toBeGreaterThan(0);
    const rollouts = await f.agent("GET", `/practice-runs/${runId}/rollouts?taskId=mul`);
    const failed = rollouts.body.items.filter((r: any) => r.error);
    expect(failed.length).toBeGreaterThan(0);
    for (const r of failed) {
      expect(r.reward).toBe(0);
      expect(r.reasoning).toMatch(/rollout failed: .*500/);
    }
  });
});
