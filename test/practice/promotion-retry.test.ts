import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import { memoryName } from "../../src/platform/objects/memory-name";
import { api, ARITHMETIC, practiceFixture } from "./harness";
import { practiceRunPorts } from "../../src/platform/objects/follow-up";
import { RunCreateSchema, type RunConfig } from "../../src/core/practice/run-types";
import type { RunExperience } from "../../src/core/practice/plan";

const DAY_MS = 24 * 60 * 60_000;

describe("practice promotion retried after its idempotency key was pruned", () => {
  it("applies once: the retry finds the version the first attempt wrote and changes nothing", async () => {
    const f = await practiceFixture(ARITHMETIC.slice(0, 1));
    const x = (await f.agent("POST", "/experiences", { text: "Add the numbers column by column." })).body.id as string;
    const stub = env.AGENT_MEMORY.getByName(memoryName(f.t.tenantId, f.agentId)) as DurableObjectStub<AgentMemory>;
    const input = {
      runId: "run_pruned_retry",
      reason: "practice run run_pruned_retry: test",
      start: [{ id: x, text: "Add the numbers column by column." }],
      final: [
        { id: x, text: "Add the numbers column by column, then re-check the carry." },
        { id: "px_new", text: "Write the final answer on its own line." },
      ],
    };
    const first = await stub.promotePractice(input);
    expect(first.ok).toBe(true);
    const applied = first.ok ? first.value.value : null;
    expect(applied).toMatchObject({ applied: 2, skipped: [] });
    expect(applied?.version).toBeGreaterThan(0);

    // The daily sweep, eight days on, prunes the idempotency key the promotion was recorded under.
    await stub.sweep({ at: Date.now() + 8 * DAY_MS });
    const keys = await runInDurableObject(stub, (_i, state) =>
      state.storage.sql.exec<{ key: string }>("SELECT key FROM idempotency").toArray(),
    );
    expect(keys).toEqual([]);

    // The run's alarm retries the promotion (its record of the first result was lost in a crash).
    const retry = await stub.promotePractice(input);
    expect(retry.ok).toBe(true);
    expect(retry.ok ? retry.value.value.version : null).toBe(applied!.version);

    const versions = (await f.agent("GET", "/library/versions")).body.items.filter((v: { reason: string }) =>
      /practice run run_pruned_retry/.test(v.reason),
    );
    expect(versions).toHaveLength(1);
    const rows = await runInDurableObject(stub, (_i, state) =>
      state.storage.sql
        .exec<{ text: string }>("SELECT text FROM experiences WHERE text = 'Write the final answer on its own line.'")
        .toArray(),
    );
    expect(rows).toHaveLength(1);
  });
});

describe("a promotion the agent can never take", () => {
  it("ends the run unpromoted instead of failing (and being retried by the run's alarm) forever", async () => {
    const f = await practiceFixture(ARITHMETIC.slice(0, 1));
    const run = {
      runId: "run_agent_gone",
      tenantId: f.t.tenantId,
      agentId: f.agentId,
      datasetId: f.datasetId,
      config: RunCreateSchema.parse({ datasetId: f.datasetId, policy: { kind: "llm" } }) as unknown as RunConfig,
      finishing: "completed" as const,
      stoppedEarly: null,
    };
    const final = [{ id: "px_new", text: "Write the final answer on its own line.", q: 0, lineage: [] }] as unknown as RunExperience[];
    // The agent is deleted while its run waits to promote (a cancel is refused once promotion began).
    expect((await api("DELETE", `/v1/agents/${f.agentId}`, f.t.apiKey)).status).toBe(200);
    const promotion = await practiceRunPorts(env).promote(run, [], final, "the gate passed");
    expect(promotion).toMatchObject({ promoted: false, version: null, applied: 0 });
    expect(promotion.reason).toMatch(/does not exist/);
  });
});

describe("a promotion the rule let through that writes nothing", () => {
  const runOf = (f: Awaited<ReturnType<typeof practiceFixture>>, runId: string) => ({
    runId,
    tenantId: f.t.tenantId,
    agentId: f.agentId,
    datasetId: f.datasetId,
    config: RunCreateSchema.parse({ datasetId: f.datasetId, policy: { kind: "llm" } }) as unknown as RunConfig,
    finishing: "completed" as const,
    stoppedEarly: null,
  });
  const verdict = "gate passed: holdout accuracy 80.0% against the starting library's 60.0%";

  it("says first why nothing was promoted, then the verdict as what the rule allowed", async () => {
    const f = await practiceFixture(ARITHMETIC.slice(0, 1));
    const x = (await f.agent("POST", "/experiences", { text: "Add the numbers column by column." })).body.id as string;
    const same = [{ id: x, text: "Add the numbers column by column.", q: 0, lineage: [] }] as unknown as RunExperience[];
    const unchanged = await practiceRunPorts(env).promote(runOf(f, "run_unchanged"), same, same, verdict);
    expect(unchanged).toMatchObject({ promoted: false, version: null, applied: 0, skipped: [] });
    expect(unchanged.reason).toBe(
      `the run's library ended as it started, so nothing was promoted (the promotion rule had let it through: ${verdict})`,
    );

    // The lesson the run rewrote was changed in the agent meanwhile: its rewrite is skipped, nothing else changed.
    await f.agent("PATCH", `/experiences/${x}`, { text: "Add the numbers right to left." });
    const rewritten = [{ id: x, text: "Add the numbers column by column, carrying.", q: 0, lineage: [] }] as unknown as RunExperience[];
    const skipped = await practiceRunPorts(env).promote(runOf(f, "run_all_skipped"), same, rewritten, verdict);
    expect(skipped).toMatchObject({ promoted: false, version: null, applied: 0 });
    expect(skipped.skipped).toEqual([expect.objectContaining({ id: x, op: "modify" })]);
    expect(skipped.reason).toMatch(/^every change of the run was skipped \(see skipped\), so nothing was promoted \(the promotion rule/);

    // One that writes: the run's reason is the verdict, the version's names the run and dataset as well.
    const added = [
      ...same,
      { id: "px_new", text: "Write the final answer on its own line.", q: 0, lineage: [] },
    ] as unknown as RunExperience[];
    const promoted = await practiceRunPorts(env).promote(runOf(f, "run_writes"), same, added, verdict);
    expect(promoted).toMatchObject({ promoted: true, applied: 1, reason: verdict });
    const versions = (await f.agent("GET", "/library/versions")).body.items;
    const version = versions.find((v: { version: number }) => v.version === promoted.version);
    expect(version.reason).toContain("run_writes");
    expect(version.reason).toContain(f.datasetId);
    expect(version.reason).toContain(verdict);
  });
});
