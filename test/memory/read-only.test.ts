import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { flushRetrievalCounts } from "../../src/platform/edge/retrieval-counters";
import { call, newKey } from "../helpers";
import { agentFixture } from "./setup";

describe("a read-scoped key changes nothing later retrievals depend on", () => {
  it("retrieve and /prompt with a read key move no counter, lastUsedAt or Q; a write key's do", async () => {
    const f = await agentFixture();
    const read = await newKey(f.t.apiKey, "read");
    const asRead = (method: string, path: string, body?: unknown) =>
      call(method, `/v1/agents/${f.agentId}${path}`, { key: read.apiKey, body });
    const lesson = (await f.api("POST", "/experiences", { text: "Retry HTTP 429 responses with exponential backoff" })).body.id;
    const caseId = (await f.api("POST", "/cases", { task: "Retry the rates API after a 429", reward: 1, answer: "backoff worked" })).body
      .id;
    const snapshot = async () => {
      const e = (await f.api("GET", `/experiences/${lesson}`)).body;
      const c = (await f.api("GET", `/cases/${caseId}`)).body;
      return { e: [e.counts, e.lastUsedAt, e.q], c: [c.counts, c.lastUsedAt, c.q] };
    };
    const before = await snapshot();

    for (let i = 0; i < 3; i++) {
      const r = await asRead("POST", "/retrieve", { query: "retry 429 backoff" });
      expect(r.status).toBe(200);
      expect(r.body.items.map((x: { id: string }) => x.id).sort()).toEqual([caseId, lesson].sort());
      expect((await asRead("GET", "/prompt?query=retry%20429&budgetTokens=20")).status).toBe(200);
    }
    await flushRetrievalCounts(env);
    expect(await snapshot()).toEqual(before);
    // The reads still count in the agent's total, as any retrieval does.
    expect((await f.api("GET", "/analytics")).body.retrievals).toBe(6);

    // The same calls with a write key count as use.
    await f.api("POST", "/retrieve", { query: "retry 429 backoff" });
    await flushRetrievalCounts(env);
    const after = await snapshot();
    expect(after.e[0]).toMatchObject({ retrieved: 1 });
    expect(after.e[1]).not.toBeNull();
    expect(after.c[0]).toMatchObject({ retrieved: 1 });
  });
});
