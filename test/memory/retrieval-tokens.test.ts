import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { retrievalCountsHeld, flushRetrievalCounts } from "../../src/services/retrieval-counters";
import { agentFixture } from "./setup";

describe("probe", () => {
  it("shares module state with SELF", async () => {
    const { api } = await agentFixture();
    const e = await api("POST", "/experiences", { text: "When npm install fails with EACCES, fix the cache permissions" });
    expect(e.status).toBe(201);
    const r = await api("POST", "/retrieve", { query: "npm install fails EACCES" });
    console.log("RID", r.body.retrievalId.length, r.body.retrievalId.slice(0, 40), r.body.items.length);
    console.log("HELD", JSON.stringify(retrievalCountsHeld()));
    await flushRetrievalCounts(env);
    const after = await api("GET", `/experiences/${e.body.id}`);
    console.log("COUNTS", JSON.stringify(after.body.counts), after.body.lastUsedAt);
  });
});
