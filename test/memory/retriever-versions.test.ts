import { describe, expect, it } from "vitest";
import { MIN_UPDATES } from "../../src/core/reranker";
import { agentFixture } from "./setup";

type Api = Awaited<ReturnType<typeof agentFixture>>["api"];

const LESSONS = [
  "Retry the payments API with backoff when it returns 429 rate limit errors",
  "Escalate to the legal team when a customer mentions a lawsuit or an attorney",
  "Validate the JSON schema of tool output before using it",
  "Read the whole stack trace before changing code",
  "Cache expensive database queries for dashboard loads",
];
const QUERIES = [
  "payments API keeps answering 429",
  "customer talks about an attorney",
  "tool output JSON looks malformed",
  "exception with a long stack trace",
  "dashboard database queries are slow",
];

/** Retrieves and rewards `n` times, citing the lesson each query is about: positives and negatives for the re-ranker. */
async function feed(api: Api, ids: string[], n: number) {
  for (let i = 0; i < n; i++) {
    const r = await api("POST", "/retrieve", { query: QUERIES[i % QUERIES.length], threshold: 0 });
    expect(r.status).toBe(200);
    const want = ids[i % ids.length]!;
    expect(r.body.items.length).toBeGreaterThan(1);
    const w = await api("POST", "/rewards", { retrievalId: r.body.retrievalId, outcome: "success", citedIds: [want] });
    expect(w.status, JSON.stringify(w.body)).toBe(200);
  }
}

async function retriever(api: Api) {
  const r = await api("GET", "/retriever");
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

describe("the learned re-ranker", () => {
  it("waits for enough rewards, then re-orders with its contribution shown in signals.learned", async () => {
    const { api } = await agentFixture();
    const ids: string[] = [];
    for (const text of LESSONS) ids.push((await api("POST", "/experiences", { text })).body.id);
    expect((await retriever(api)).reranker).toMatchObject({ active: false, updates: 0, minUpdates: MIN_UPDATES });
    await feed(api, ids, MIN_UPDATES - 1);
    expect((await retriever(api)).reranker.active).toBe(false);
    const before = await api("POST", "/retrieve", { query: QUERIES[0], threshold: 0 });
    for (const item of before.body.items) expect(item.signals.learned).toBeNull();
    await feed(api, ids, 1);
    const state = await retriever(api);
    expect(state.reranker).toMatchObject({ active: true, updates: MIN_UPDATES });
    expect(Object.values(state.reranker.weights).some((w) => w !== 0)).toBe(true);
    const after = await api("POST", "/retrieve", { query: QUERIES[0], threshold: 0 });
    for (const item of after.body.items) expect(typeof item.signals.learned).toBe("number");
    expect(after.body.items[0].id).toBe(ids[0]);
  });

  it("is versioned with the library: a rollback restores the weights of the version it returns to", async () => {
    const { api } = await agentFixture();
    const ids: string[] = [];
    for (const text of LESSONS) ids.push((await api("POST", "/experiences", { text })).body.id);
    await feed(api, ids, MIN_UPDATES + 2);
    const atV5 = await retriever(api);
    expect(atV5.libraryVersion).toBe(LESSONS.length);

    const added = await api("POST", "/experiences", { text: "Ask for the order number before looking up a refund" });
    expect(added.status).toBe(201);
    await feed(api, ids, 7);
    const atV6 = await retriever(api);
    expect(atV6.reranker.updates).toBe(MIN_UPDATES + 9);
    expect(atV6.reranker.weights).not.toEqual(atV5.reranker.weights);

    const rb = await api("POST", "/library/rollback", { version: LESSONS.length });
    expect(rb.status, JSON.stringify(rb.body)).toBe(200);
    const restored = await retriever(api);
    expect(restored.libraryVersion).toBe(LESSONS.length + 2);
    expect(restored.reranker).toEqual(atV5.reranker);

    // Learning goes on from the restored weights, and rolling forward again restores the later ones.
    await feed(api, ids, 1);
    expect((await retriever(api)).reranker.updates).toBe(MIN_UPDATES + 3);
    expect((await api("POST", "/library/rollback", { version: LESSONS.length + 1 })).status).toBe(200);
    expect((await retriever(api)).reranker).toEqual(atV6.reranker);
  });

  it("DELETE /retriever clears the re-ranker and usage memory, and retrieval is back to the fixed fusion", async () => {
    const { api } = await agentFixture();
    const ids: string[] = [];
    for (const text of LESSONS) ids.push((await api("POST", "/experiences", { text })).body.id);
    const fixed = (await api("POST", "/retrieve", { query: QUERIES[2], threshold: 0, lambda: 0 })).body.items.map(
      (i: { id: string }) => i.id,
    );
    await feed(api, ids, MIN_UPDATES + 5);
    const learned = await retriever(api);
    expect(learned.reranker.active).toBe(true);
    expect(learned.usage.memories).toBe(LESSONS.length);

    const del = await api("DELETE", "/retriever");
    expect(del.status).toBe(200);
    expect(del.body.reranker).toMatchObject({ active: false, updates: 0 });
    expect(del.body.usage).toEqual({ memories: 0, phrases: 0, pendingPhrases: 0, centroids: 0 });
    expect(await retriever(api)).toEqual(del.body);
    const after = (await api("POST", "/retrieve", { query: QUERIES[2], threshold: 0, lambda: 0 })).body.items;
    expect(after.map((i: { id: string }) => i.id)).toEqual(fixed);
    for (const item of after) expect(item.signals).toEqual({ usage: 0, phrases: 0, when: 0, whenLexical: 0, learned: null });
  });

  it("GET and DELETE /retriever answer 404 for an unknown agent and need the agent's key", async () => {
    const { api, t } = await agentFixture();
    const { call } = await import("../helpers");
    expect((await call("GET", "/v1/agents/nobody-here/retriever", { key: t.apiKey })).status).toBe(404);
    expect((await call("GET", "/v1/agents/nobody-here/retriever", {})).status).toBe(401);
    expect((await api("GET", "/retriever")).status).toBe(200);
  });
});
