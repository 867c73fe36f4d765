import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import { memoryName } from "../../src/platform/objects/memory-name";
import { flushRetrievalCounts } from "../../src/platform/edge/retrieval-counters";
import { call, expectProblem, newKey } from "../helpers";
import { agentFixture } from "./setup";

/** Lessons that all match the query, the first most closely, the last least. */
const RETRY = [
  "Retry HTTP 429 responses with exponential backoff and jitter",
  "Retry HTTP 429 responses with exponential backoff",
  "Retry HTTP 429 responses after waiting",
  "Retry HTTP 429 responses",
  "Retry HTTP responses slowly when a service is busy",
];
const QUERY = "retry HTTP 429 responses with exponential backoff and jitter";

describe("metadata on lessons and cases", () => {
  it("is stored, returned, replaced by PATCH, and kept through versions, rollback and export/import", async () => {
    const { api } = await agentFixture();
    const meta = { customer: "acme", priority: 2, verified: true };
    const e = await api("POST", "/experiences", { text: RETRY[0], metadata: meta });
    expect(e.status, JSON.stringify(e.body)).toBe(201);
    expect(e.body.metadata).toEqual(meta);
    expect((await api("GET", `/experiences/${e.body.id}`)).body.metadata).toEqual(meta);
    const plain = await api("POST", "/experiences", { text: RETRY[3] });
    expect(plain.body.metadata).toEqual({});

    const p = await api("PATCH", `/experiences/${e.body.id}`, { metadata: { customer: "globex" } });
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    expect(p.body.metadata).toEqual({ customer: "globex" });
    const version = (await api("GET", "/library/versions")).body.items[0].version;
    const rb = await api("POST", "/library/rollback", { version: version - 1 });
    expect(rb.status, JSON.stringify(rb.body)).toBe(200);
    expect((await api("GET", `/experiences/${e.body.id}`)).body.metadata).toEqual(meta);

    const exported = await api("GET", "/library/export");
    expect(exported.body.experiences.find((x: any) => x.id === e.body.id).metadata).toEqual(meta);
    const other = await agentFixture();
    const imp = await other.api("POST", "/library/import", { mode: "merge", library: exported.body });
    expect(imp.status, JSON.stringify(imp.body)).toBe(200);
    const there = (await other.api("GET", "/experiences")).body.items.find((x: any) => x.text === RETRY[0]);
    expect(there.metadata).toEqual(meta);

    const c = await api("POST", "/cases", {
      task: "Fetch the invoice list",
      reward: 1,
      answer: "42 invoices",
      metadata: { customer: "acme" },
    });
    expect(c.status, JSON.stringify(c.body)).toBe(201);
    expect(c.body.metadata).toEqual({ customer: "acme" });
    const caseId = c.body.id;
    const cp = await api("PATCH", `/cases/${caseId}`, { metadata: { customer: "initech", region: "eu" } });
    expect(cp.body.metadata).toEqual({ customer: "initech", region: "eu" });
    expect((await api("GET", `/cases/${caseId}`)).body.metadata).toEqual({ customer: "initech", region: "eu" });
  });

  it("a rollback to a version written before metadata existed rewrites only what changed", async () => {
    const { api, t, agentId } = await agentFixture();
    await api("POST", "/experiences", { text: RETRY[0] });
    const b = (await api("POST", "/experiences", { text: RETRY[1] })).body.id;
    const stub = env.AGENT_MEMORY.getByName(memoryName(t.tenantId, agentId)) as DurableObjectStub<AgentMemory>;
    await runInDurableObject(stub, (_obj, state) => {
      // The versions as an older release recorded them: snapshots without a metadata field.
      state.storage.sql.exec("UPDATE library_changes SET after = json_remove(after, '$.metadata') WHERE after IS NOT NULL");
    });
    await api("PATCH", `/experiences/${b}`, { text: RETRY[2] });
    const rb = await api("POST", "/library/rollback", { version: 2 });
    expect(rb.status, JSON.stringify(rb.body)).toBe(200);
    const latest = (await api("GET", "/library/versions")).body.items[0];
    expect(latest.changes).toBe(1);
    expect((await api("GET", `/experiences/${b}`)).body).toMatchObject({ text: RETRY[1], metadata: {} });
  });

  it("refuses nested, oversized or oddly keyed metadata with a problem, and stores nothing", async () => {
    const { api } = await agentFixture();
    const e = await api("POST", "/experiences", { text: RETRY[0], metadata: { a: "1" } });
    const bad: unknown[] = [
      { nested: { deep: 1 } },
      { list: [1, 2] },
      { nothing: null },
      Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, i])),
      { "has space": "x" },
      { "": "x" },
      { ["k".repeat(65)]: "x" },
      { long: "x".repeat(1001) },
      { hidden: "a\u202Eb" },
      "not an object",
    ];
    for (const metadata of bad) {
      expectProblem(await api("POST", "/experiences", { text: RETRY[1], metadata }), 400);
      expectProblem(await api("POST", "/cases", { task: "Fetch the invoice list", reward: 1, metadata }), 400);
      expectProblem(await api("PATCH", `/experiences/${e.body.id}`, { metadata }), 400);
    }
    expect((await api("GET", "/experiences")).body.items).toHaveLength(1);
    expect((await api("GET", "/cases")).body.items).toHaveLength(0);
    expect((await api("GET", `/experiences/${e.body.id}`)).body.metadata).toEqual({ a: "1" });
    expect((await api("GET", "/library/versions")).body.items).toHaveLength(1);
  });

  it("never reaches the prompt text, and retrieved items carry it beside their text", async () => {
    const { api } = await agentFixture();
    await api("POST", "/experiences", { text: RETRY[0], metadata: { secretNote: "zebra-canary-7731", flag: true } });
    await api("POST", "/cases", {
      task: "Retry the HTTP 429 upload",
      reward: 1,
      answer: "Waited and retried",
      metadata: { secretNote: "zebra-canary-7731" },
    });
    const block = await api("GET", `/prompt?query=${encodeURIComponent(QUERY)}`);
    expect(block.status).toBe(200);
    expect(block.body.caseIds).toHaveLength(1);
    expect(block.body.prompt).not.toContain("zebra-canary");
    expect(block.body.prompt).not.toContain("secretNote");
    const r = await api("POST", "/retrieve", { query: QUERY });
    expect(r.body.items).toHaveLength(2);
    for (const item of r.body.items) {
      expect(item.metadata.secretNote).toBe("zebra-canary-7731");
      expect(item.text).not.toContain("zebra-canary");
    }
  });
});

describe("retrieval filters", () => {
  it("are applied before ranking: a filter matching only a low-ranked item fills the top k with it", async () => {
    const { api } = await agentFixture();
    const ids: string[] = [];
    for (const [i, text] of RETRY.entries()) {
      ids.push(
        (await api("POST", "/experiences", { text, metadata: i === RETRY.length - 1 ? { customer: "acme" } : { customer: "globex" } })).body
          .id,
      );
    }
    const low = ids[ids.length - 1]!;
    const unfiltered = await api("POST", "/retrieve", { query: QUERY, k1: 2, k2: 1, kinds: ["experience"] });
    expect(unfiltered.body.items.map((i: any) => i.id)).not.toContain(low);
    const filtered = await api("POST", "/retrieve", {
      query: QUERY,
      k1: 2,
      k2: 1,
      kinds: ["experience"],
      filter: { metadata: { customer: "acme" } },
    });
    expect(filtered.status, JSON.stringify(filtered.body)).toBe(200);
    expect(filtered.body.items.map((i: any) => i.id)).toEqual([low]);
    expect(filtered.body.items[0].metadata).toEqual({ customer: "acme" });
    // The prompt's ranked lessons are drawn from the matching ones too.
    const block = await api(
      "GET",
      `/prompt?query=${encodeURIComponent(QUERY)}&budgetTokens=40&filter=${encodeURIComponent(JSON.stringify({ metadata: { customer: "acme" } }))}`,
    );
    expect(block.status, JSON.stringify(block.body)).toBe(200);
    expect(block.body.experienceIds).toEqual([low]);
  });

  it("compare metadata by type and value, and combine every condition", async () => {
    const { api } = await agentFixture();
    const a = (
      await api("POST", "/experiences", { text: RETRY[0], metadata: { n: 1, ok: true, s: "1" }, tags: ["api"], domain: "billing" })
    ).body.id;
    const b = (await api("POST", "/experiences", { text: RETRY[1], metadata: { n: "1", ok: false }, tags: ["net"] })).body.id;
    const c = (await api("POST", "/cases", { task: RETRY[2], reward: 1, answer: "done", metadata: { n: 1 }, tags: ["api"] })).body;
    const caseId = c.id;
    const ids = async (filter: object) => {
      const r = await api("POST", "/retrieve", { query: QUERY, filter });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.items.map((i: any) => i.id).sort();
    };
    expect(await ids({})).toEqual([a, b, caseId].sort());
    expect(await ids({ metadata: {} })).toEqual([a, b, caseId].sort());
    expect(await ids({ metadata: { n: 1 } })).toEqual([a, caseId].sort());
    expect(await ids({ metadata: { n: "1" } })).toEqual([b]);
    expect(await ids({ metadata: { ok: true } })).toEqual([a]);
    expect(await ids({ metadata: { ok: false } })).toEqual([b]);
    expect(await ids({ metadata: { s: 1 } })).toEqual([]);
    expect(await ids({ metadata: { n: 1, ok: true } })).toEqual([a]);
    expect(await ids({ metadata: { missing: "x" } })).toEqual([]);
    expect(await ids({ tags: ["net", "api"] })).toEqual([a, b, caseId].sort());
    expect(await ids({ tags: ["api"], metadata: { n: 1 } })).toEqual([a, caseId].sort());
    // Cases have no domain, so a domain filter leaves lessons only.
    expect(await ids({ domain: "billing" })).toEqual([a]);
  });

  it("by creation and last use, in epoch milliseconds", async () => {
    const { api, t, agentId } = await agentFixture();
    const old = (await api("POST", "/experiences", { text: RETRY[0] })).body;
    const fresh = (await api("POST", "/experiences", { text: RETRY[1] })).body;
    // A read key's retrievals mark nothing as used, so probing does not move what it probes.
    const reader = await newKey(t.apiKey, "read", [agentId]);
    const ids = async (filter: object) =>
      (await call("POST", `/v1/agents/${agentId}/retrieve`, { key: reader.apiKey, body: { query: QUERY, filter } })).body.items
        .map((i: any) => i.id)
        .sort();
    // Nothing has been used yet (both match the query, as the next lines show); never-used items do not match usedAfter.
    expect(await ids({ usedAfter: 0 })).toEqual([]);
    expect(await ids({ createdAfter: old.createdAt - 1 })).toEqual([old.id, fresh.id].sort());
    expect(await ids({ createdAfter: fresh.createdAt })).toEqual([]);
    await api("POST", "/retrieve", { query: QUERY });
    await flushRetrievalCounts(env);
    const used = await Promise.all(
      [old.id, fresh.id].map(async (id) => (await api("GET", `/experiences/${id}`)).body.lastUsedAt as number),
    );
    expect(await ids({ usedAfter: Math.min(...used) - 1 })).toEqual([old.id, fresh.id].sort());
    expect(await ids({ usedAfter: Math.max(...used) + 1 })).toEqual([]);
  });

  it("refuses a malformed filter with a problem", async () => {
    const { api } = await agentFixture();
    await api("POST", "/experiences", { text: RETRY[0] });
    for (const filter of [
      { colour: "red" },
      { metadata: { a: { b: 1 } } },
      { tags: [] },
      { createdAfter: "yesterday" },
      { usedAfter: -1 },
      { domain: "" },
    ]) {
      expectProblem(await api("POST", "/retrieve", { query: QUERY, filter }), 400);
    }
    expectProblem(await api("POST", "/retrieve", { query: QUERY, tags: ["a"], filter: { tags: ["b"] } }), 400);
    for (const filter of ["{not json", JSON.stringify({ colour: "red" }), JSON.stringify([1])]) {
      expectProblem(await api("GET", `/prompt?query=x&filter=${encodeURIComponent(filter)}`), 400);
    }
    // Refused reads record nothing: the next retrieval is the first.
    expect((await api("GET", "/experiences")).body.items[0].counts.retrieved).toBe(0);
  });
});
