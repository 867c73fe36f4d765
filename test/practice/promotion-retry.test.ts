import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import { memoryName } from "../../src/services/agent-memory";
import { ARITHMETIC, practiceFixture } from "./harness";

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
    await stub.sweep(Date.now() + 8 * DAY_MS);
    const keys = await runInDurableObject(stub, (_i, state) => state.storage.sql.exec<{ key: string }>("SELECT key FROM idempotency").toArray());
    expect(keys).toEqual([]);

    // The run's alarm retries the promotion (its record of the first result was lost in a crash).
    const retry = await stub.promotePractice(input);
    expect(retry.ok).toBe(true);
    expect(retry.ok ? retry.value.value.version : null).toBe(applied!.version);

    const versions = (await f.agent("GET", "/library/versions")).body.items.filter((v: { reason: string }) => /practice run run_pruned_retry/.test(v.reason));
    expect(versions).toHaveLength(1);
    const rows = await runInDurableObject(stub, (_i, state) =>
      state.storage.sql.exec<{ text: string }>("SELECT text FROM experiences WHERE text = 'Write the final answer on its own line.'").toArray(),
    );
    expect(rows).toHaveLength(1);
  });
});
