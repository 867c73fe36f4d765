import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { flushRetrievalCounts } from "../../src/platform/edge/retrieval-counters";
import { call, expectProblem } from "../helpers";
import { HASH_SIMILARITY_THRESHOLD } from "../../src/adapters/embedders/hash";
import { agentFixture } from "./setup";

const LESSONS = [
  "When the API returns HTTP 429, retry with exponential backoff and jitter",
  "Retry failed HTTP requests to the payment API with exponential backoff",
  "Always validate the JSON schema of tool output before using it",
  "Cache expensive database queries for repeated dashboard loads",
  "Read the whole error message and stack trace before changing code",
];

describe("retrieval", () => {
  it("ranks by similarity with explanations, filters by threshold, never returns archived items", async () => {
    const { api } = await agentFixture();
    const ids: string[] = [];
    for (const text of LESSONS) ids.push((await api("POST", "/experiences", { text })).body.id);
    await api("PATCH", `/experiences/${ids[1]}`, { status: "archived" });
    const r = await api("POST", "/retrieve", {
      query: "the API answered 429 too many requests, should I retry with backoff?",
      kinds: ["experience"],
    });
    expect(r.status).toBe(200);
    expect(r.body.retrievalId).toMatch(/^rt1\./);
    expect(r.body.lambda).toBe(0.5);
    const got = r.body.items.map((i: any) => i.id);
    expect(got[0]).toBe(ids[0]);
    expect(got).not.toContain(ids[1]);
    for (const item of r.body.items) {
      // Past the hash embedder's own threshold, or sharing a word with the query.
      expect(item.match).toBe(item.sim >= HASH_SIMILARITY_THRESHOLD ? "vector" : "lexical");
      if (item.match === "lexical") expect(item.lexical).toBeGreaterThan(0);
      expect(item).toHaveProperty("simZ");
      expect(item).toHaveProperty("qZ");
      expect(item.score).toBeCloseTo(0.5 * item.simZ + 0.5 * item.qZ, 10);
    }
    expect(r.body.items[0].label).toBe("G0");
  });

  it("a single candidate gets z = 0 and the blend of its relevance and Q as its score; phase sets λ unless λ is given", async () => {
    const { api } = await agentFixture();
    await api("POST", "/experiences", { text: LESSONS[3] });
    const r = await api("POST", "/retrieve", { query: "cache expensive database queries", phase: "planning" });
    expect(r.body.lambda).toBe(0.7);
    expect(r.body.items).toHaveLength(1);
    const [only] = r.body.items;
    expect(only).toMatchObject({ simZ: 0, qZ: 0, lambda: 0.7 });
    expect(only.relevance).toBeGreaterThan(0);
    expect(only.score).toBeCloseTo(0.3 * only.relevance + 0.7 * only.q, 10);
    expect(only.score).toBeGreaterThan(0);
    const o = await api("POST", "/retrieve", { query: "cache expensive database queries", phase: "planning", lambda: 0.1 });
    expect(o.body.lambda).toBe(0.1);
  });

  it("Q-values change the ranking once rewards arrive (λ = 1 ranks purely by Q)", async () => {
    const { api } = await agentFixture();
    const a = (await api("POST", "/experiences", { text: "Retry HTTP 429 responses with exponential backoff" })).body.id;
    const b = (await api("POST", "/experiences", { text: "Retry HTTP 429 responses after waiting for Retry-After" })).body.id;
    for (let i = 0; i < 5; i++) await api("POST", "/rewards", { memoryIds: [b], outcome: "success" });
    await api("POST", "/rewards", { memoryIds: [a], outcome: "failure" });
    const byQ = await api("POST", "/retrieve", { query: "retry HTTP 429 responses", lambda: 1 });
    expect(byQ.body.items.map((i: any) => i.id)).toEqual([b, a]);
    expect(byQ.body.items[0].qZ).toBeCloseTo(1, 10);
    expect(byQ.body.items[1].qZ).toBeCloseTo(-1, 10);
    const bySim = await api("POST", "/retrieve", { query: "retry HTTP 429 responses with exponential backoff", lambda: 0 });
    expect(bySim.body.items[0].id).toBe(a);
  });

  it("retrieves cases alongside experiences, with kind and tag filters", async () => {
    const { api } = await agentFixture();
    await api("POST", "/experiences", { text: "Convert currencies before comparing prices", tags: ["finance"] });
    const c = await api("POST", "/cases", {
      task: "Compare the prices of two products listed in different currencies",
      reward: 1,
      answer: "B is cheaper",
      tags: ["finance"],
    });
    expect(c.status).toBe(201);
    expect(c.body.label).toBe("positive");
    const r = await api("POST", "/retrieve", { query: "compare prices in different currencies", threshold: 0.1 });
    expect(r.body.items.map((i: any) => i.kind).sort()).toEqual(["case", "experience"]);
    const onlyCases = await api("POST", "/retrieve", { query: "compare prices in different currencies", kinds: ["case"], threshold: 0.1 });
    expect(onlyCases.body.items.map((i: any) => i.id)).toEqual([c.body.id]);
    const tagged = await api("POST", "/retrieve", { query: "compare prices in different currencies", tags: ["travel"], threshold: 0.1 });
    expect(tagged.body.items).toHaveLength(0);
  });

  it("counts retrievals on the items", async () => {
    const { api } = await agentFixture();
    const id = (await api("POST", "/experiences", { text: LESSONS[2] })).body.id;
    await api("POST", "/retrieve", { query: "validate JSON schema of tool output" });
    await api("POST", "/retrieve", { query: "validate JSON schema of tool output" });
    // Counted in the Worker, applied to the agent in a batch (src/platform/edge/retrieval-counters.ts).
    await flushRetrievalCounts(env);
    const e = await api("GET", `/experiences/${id}`);
    expect(e.body.counts.retrieved).toBe(2);
    expect(e.body.lastUsedAt).toBeTypeOf("number");
  });

  it("rejects bad retrieval input and another tenant's agent", async () => {
    const { api, agentId } = await agentFixture();
    const empty = await api("POST", "/retrieve", { query: "   " });
    expectProblem(empty, 400, "validation-failed");
    expect(empty.body.errors[0].path).toBe("query");
    expectProblem(await api("POST", "/retrieve", { query: "x", phase: "dreaming" }), 400);
    expectProblem(await api("POST", "/retrieve", { query: "x", lambda: 2 }), 400);
    const other = await agentFixture();
    expectProblem(await call("POST", `/v1/agents/${agentId}/retrieve`, { key: other.t.apiKey, body: { query: "x" } }), 404);
  });
});

describe("prompt block", () => {
  it("injects the whole library as [G#]. lines when it fits, ranked subset when not", async () => {
    const { api } = await agentFixture();
    for (const text of LESSONS) await api("POST", "/experiences", { text });
    await api("POST", "/cases", { task: "Retry a payment API call that returned 429", reward: 1, answer: "waited and retried" });
    const full = await api("GET", "/prompt?query=payment%20API%20returned%20429&budgetTokens=2000");
    expect(full.status).toBe(200);
    expect(full.body.mode).toBe("full-library");
    expect(full.body.experienceIds).toHaveLength(5);
    expect(full.body.prompt).toContain("[G0]. When the API returns HTTP 429");
    expect(full.body.prompt).toContain("[G4]. Read the whole error message");
    expect(full.body.caseIds).toHaveLength(1);
    const small = await api("GET", "/prompt?query=payment%20API%20returned%20429%20retry%20backoff&budgetTokens=60&maxCases=0");
    expect(small.body.mode).toBe("ranked");
    expect(small.body.experienceIds.length).toBeGreaterThan(0);
    expect(small.body.experienceIds.length).toBeLessThan(5);
    expect(small.body.estimatedTokens).toBeLessThanOrEqual(60);
    expect(small.body.prompt).toMatch(/\[G[01]\]\. .*429/);
    const reward = await api("POST", "/rewards", { retrievalId: small.body.retrievalId, outcome: "success" });
    expect(reward.body.updated.map((u: any) => u.id).sort()).toEqual([...small.body.experienceIds].sort());
  });
});

describe("large requests", () => {
  it("handles batches and candidate sets beyond SQLite's 100-parameter limit", async () => {
    const { api } = await agentFixture();
    const operations = Array.from({ length: 150 }, (_, i) => ({
      op: "create",
      experience: { text: `API lesson ${i}: check the rate limit headers of service ${i}`, tags: ["api"] },
    }));
    const batch = await api("POST", "/library/batch", { reason: "bulk", operations });
    expect(batch.status).toBe(200);
    expect(batch.body.experiences).toHaveLength(150);
    const wide = await api("POST", "/retrieve", { query: "rate limit headers of service", k1: 150, k2: 100, threshold: -1 });
    expect(wide.status).toBe(200);
    expect(wide.body.items).toHaveLength(100);
    const tagged = await api("POST", "/retrieve", { query: "rate limit headers", tags: ["api"], k1: 25, k2: 25 });
    expect(tagged.body.items).toHaveLength(25);
    const reward = await api("POST", "/rewards", { retrievalId: wide.body.retrievalId, outcome: "success" });
    expect(reward.body.updated).toHaveLength(100);
  });
});
