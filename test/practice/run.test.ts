import { afterEach, describe, expect, it, vi } from "vitest";
import { ARITHMETIC, api, captureQueues, practiceFixture, practiceLlm, seedLessons, startRun } from "./harness";

afterEach(() => vi.restoreAllMocks());

const RUN = { epochs: 2, batchSize: 2, groupSize: 3, seed: 7 };

describe("practice run, end to end through the queue and the Durable Objects", () => {
  it("runs 2 epochs × 2 steps with exact LLM calls per stage and promotes one practice version", async () => {
    const f = await practiceFixture(ARITHMETIC);
    await seedLessons(f, ["Show your working before the final answer."]);
    const q = captureQueues();
    const llm = practiceLlm();
    const runId = await startRun(f, RUN);
    await q.pump();

    const run = await f.agent("GET", `/practice-runs/${runId}`);
    expect(run.status).toBe(200);
    expect(run.body.status, JSON.stringify(run.body)).toBe("completed");
    expect(run.body.progress.rollouts).toEqual({ done: 24, total: 24 });
    expect(run.body.trainReward).toHaveLength(4);

    const steps = await f.agent("GET", `/practice-runs/${runId}/steps`);
    expect(steps.body.items.map((s: any) => [s.epoch, s.step, s.status])).toEqual([
      [0, 0, "done"],
      [0, 1, "done"],
      [1, 0, "done"],
      [1, 1, "done"],
    ]);
    const details = await Promise.all([0, 1, 2, 3].map((n) => f.agent("GET", `/practice-runs/${runId}/steps/${n}`)));
    const groups = details.flatMap((d) => d.body.groups);
    const kept = groups.filter((g: any) => g.kept);
    // The always-right and always-wrong tasks never have contrast; the mixed ones sometimes do.
    for (const g of groups.filter((g: any) => g.taskId === "add" || g.taskId === "div")) expect(g.kept).toBe(false);
    expect(kept.length).toBeGreaterThan(0);
    const stepsWithProposals = details.filter((d) => d.body.groups.some((g: any) => g.kept)).length;

    expect(llm.count("rollout")).toBe(24);
    expect(llm.count("summary")).toBe(kept.length);
    expect(llm.count("advantage")).toBe(kept.length);
    expect(llm.count("batch")).toBe(stepsWithProposals);
    // Consumers run the units the run hands them after each result, so fewer messages than units go through the queue.
    expect(q.stats.delivered).toBeLessThan(24 + 2 * kept.length + stepsWithProposals);
    for (const s of llm.sent.filter((x) => x.schemaName === "attempt_summaries" || x.schemaName === "group_advantage")) {
      expect(s.prompt).not.toContain("What is 17 + 25?");
      expect(s.prompt).not.toContain("What is 84 / 2?");
    }
    // Rollouts see the library as [G#] lines and sample with a seed; learning calls stay cool.
    const rollout = llm.sent.find((s) => s.schemaName === null)!;
    expect(rollout.body.messages[0].content).toContain("[G0]. Show your working before the final answer.");
    expect(rollout.body.temperature).toBe(0.7);
    expect(typeof rollout.body.seed).toBe("number");
    for (const s of llm.sent.filter((x) => x.schemaName !== null)) expect(s.body.temperature).toBeLessThanOrEqual(0.3);

    const usage = await api("GET", "/v1/usage?groupBy=purpose", f.t.apiKey);
    const calls = Object.fromEntries(usage.body.groups.map((g: any) => [g.key, g.calls]));
    expect(calls).toMatchObject({
      "practice-rollout": 24,
      "practice-summary": kept.length,
      "practice-advantage": kept.length,
      "practice-batch": stepsWithProposals,
    });
    expect(run.body.usage.calls).toBe(llm.sent.length);

    const versions = await f.agent("GET", "/library/versions");
    const practice = versions.body.items.filter((v: any) => v.author === `run:${runId}`);
    expect(practice).toHaveLength(1);
    expect(run.body.promotion).toMatchObject({ promoted: true, version: practice[0].version });
    const lib = await f.agent("GET", "/experiences?source=practice");
    expect(lib.body.items.length).toBeGreaterThan(0);
    for (const e of lib.body.items) expect(e.provenance).toMatchObject({ runId });
    // The batch update's \`when\` reached the promoted lessons; prompts show only the text.
    for (const e of lib.body.items) expect(e.when).toMatch(/^a calculation like .* has to be answered exactly$/);
    expect(llm.sent.filter((s) => s.schemaName === "safety_review").some((s) => s.prompt.includes("when: a calculation like"))).toBe(true);
    const runLib = await f.agent("GET", `/practice-runs/${runId}/library`);
    expect(runLib.body.items.map((e: any) => e.text).sort()).toEqual(
      [...lib.body.items.map((e: any) => e.text), "Show your working before the final answer."].sort(),
    );
    // Each promoted lesson names its id in the run's library, the id the run's steps and diff use.
    const runIdOf = new Map(runLib.body.items.map((e: any) => [e.text, e.id]));
    for (const e of lib.body.items) expect(e.provenance.runItemId).toBe(runIdOf.get(e.text));
    expect(lib.body.items[0].provenance.runItemId).toMatch(/^px_/);
    // Rolling the practice version back restores the library as it was.
    const rb = await f.agent("POST", "/library/rollback", { version: practice[0].version - 1 });
    expect(rb.status).toBe(200);
    expect((await f.agent("GET", "/experiences?source=practice")).body.items).toHaveLength(0);
  });
});
