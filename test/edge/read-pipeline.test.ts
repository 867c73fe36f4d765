import { describe, expect, it } from "vitest";
import { agentFixture } from "../memory/setup";
import { probedWorker } from "./probe";

describe("one read pipeline at the edge", () => {
  it("a read ranked at the edge whose token would be too long is recorded by the object as ranked, never ranked again", async () => {
    const f = await agentFixture();
    const operations = Array.from({ length: 300 }, (_, i) => ({
      op: "create",
      experience: { text: `Keep the rollout of service ${i} behind a flag until its canary is healthy`, tags: ["deploy"] },
    }));
    expect((await f.api("POST", "/library/batch", { reason: "seed", operations })).status).toBe(200);
    const w = probedWorker({}, { READ_STALENESS_MS: "60000" });
    const prompt = () => w.call("GET", `/v1/agents/${f.agentId}/prompt?budgetTokens=200000`, f.t.apiKey);
    await prompt();
    // The whole library in one block: its token would be far past MAX_TOKEN_CHARS.
    const block = await prompt();
    expect(block.status, JSON.stringify(block.body)).toBe(200);
    expect(block.body).toMatchObject({ servedFrom: "edge", mode: "full-library" });
    expect(block.body.fallbackReason).toBeUndefined();
    expect(block.body.experienceIds).toHaveLength(300);
    expect(block.body.retrievalId).toMatch(/^ret_/);
    const asked = block.trips.ops.filter((op) => op.startsWith("AGENT_MEMORY") && op !== "AGENT_MEMORY.applyRetrievalCounts");
    expect(asked).toEqual(["AGENT_MEMORY.recordRetrieval"]);
    // The object keeps the block as shown: a reward of it credits the lesson the answer cited.
    const cited = block.body.experienceIds[7];
    const before = (await f.api("GET", `/experiences/${cited}`)).body.q;
    const reward = await f.api("POST", "/rewards", { retrievalId: block.body.retrievalId, outcome: "success", citedIds: [cited] });
    expect(reward.status, JSON.stringify(reward.body)).toBe(200);
    expect((await f.api("GET", `/experiences/${cited}`)).body.q).toBeGreaterThan(before);
  });
});
