import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import { LEXICAL_MAX_TERM_DOCS } from "../../src/core/lexical";
import { memoryName } from "../../src/platform/objects/memory-name";
import { call } from "../helpers";
import { agentFixture } from "./setup";

type Api = Awaited<ReturnType<typeof agentFixture>>["api"];

/** What the lexical channel alone finds: threshold 1 shuts the vector gate for anything but an identical text. */
async function lexicalIds(api: Api, query: string): Promise<string[]> {
  const r = await api("POST", "/retrieve", { query, threshold: 1, lambda: 0 });
  expect(r.status).toBe(200);
  return r.body.items.filter((i: any) => i.lexical > 0).map((i: any) => i.id);
}

/** FTS5's own check that the index holds exactly what the content tables hold. */
async function ftsIntact(tenantId: string, agentId: string): Promise<void> {
  const stub = env.AGENT_MEMORY.getByName(memoryName(tenantId, agentId)) as DurableObjectStub<AgentMemory>;
  await runInDurableObject(stub, (_i, state) => {
    state.storage.sql.exec("INSERT INTO experiences_fts (experiences_fts, rank) VALUES ('integrity-check', 1)");
    state.storage.sql.exec("INSERT INTO cases_fts (cases_fts, rank) VALUES ('integrity-check', 1)");
  });
}

const LESSONS = [
  "Read the whole error message and stack trace before changing code",
  "Always validate the JSON schema of tool output before using it",
  "Cache expensive database queries for repeated dashboard loads",
  "Retry failed webhooks from the outbox after the receiver recovers",
];

describe("hybrid retrieval", () => {
  it("keeps the lexical index in step with create, update, archive, delete, rollback and import", async () => {
    const { t, agentId, api } = await agentFixture();
    const a = (await api("POST", "/experiences", { text: "Flush the zeppelin cache before deploys", keywords: ["airship"] })).body.id;
    const b = (await api("POST", "/experiences", { text: "Rotate the quokka credentials monthly" })).body.id;
    await api("POST", "/cases", { task: "Rebuild the narwhal index", reward: 1 });
    expect(await lexicalIds(api, "zeppelin")).toEqual([a]);
    expect(await lexicalIds(api, "airship")).toEqual([a]);
    expect((await lexicalIds(api, "narwhal")).length).toBe(1);
    await ftsIntact(t.tenantId, agentId);

    await api("PATCH", `/experiences/${a}`, { text: "Flush the dirigible cache before deploys", pattern: "before a blimp release" });
    expect(await lexicalIds(api, "zeppelin")).toEqual([]);
    expect(await lexicalIds(api, "dirigible")).toEqual([a]);
    expect(await lexicalIds(api, "blimp")).toEqual([a]);

    await api("PATCH", `/experiences/${a}`, { status: "archived" });
    expect(await lexicalIds(api, "dirigible")).toEqual([]);
    await api("DELETE", `/experiences/${b}`);
    expect(await lexicalIds(api, "quokka")).toEqual([]);
    await ftsIntact(t.tenantId, agentId);

    const rb = await api("POST", "/library/rollback", { version: 2 });
    expect(rb.status).toBe(200);
    expect(await lexicalIds(api, "zeppelin")).toEqual([a]);
    expect(await lexicalIds(api, "quokka")).toEqual([b]);
    expect(await lexicalIds(api, "dirigible")).toEqual([]);
    await ftsIntact(t.tenantId, agentId);

    const exported = await api("GET", "/library/export");
    const dstId = `fts-dst-${Date.now().toString(36)}`;
    await call("PUT", `/v1/agents/${dstId}`, { key: t.apiKey, body: {} });
    const dst = (m: string, p: string, body?: unknown) => call(m, `/v1/agents/${dstId}${p}`, { key: t.apiKey, body });
    const old = (await dst("POST", "/experiences", { text: "Feed the pelican twice" })).body.id;
    expect(await lexicalIds(dst, "pelican")).toEqual([old]);
    expect((await dst("POST", "/library/import", { mode: "replace", library: exported.body })).status).toBe(200);
    expect(await lexicalIds(dst, "pelican")).toEqual([]);
    expect(await lexicalIds(dst, "zeppelin")).toHaveLength(1);
    await ftsIntact(t.tenantId, dstId);
  });

  it("fuses the channels: a lexical-only match and a vector-only match are both found, a match in both ranks first", async () => {
    const { api } = await agentFixture();
    await api("PATCH", "/config", { embedder: { provider: "semantic" } });
    const ids: string[] = [];
    for (const text of LESSONS) ids.push((await api("POST", "/experiences", { text })).body.id);
    const legal = (
      await api("POST", "/experiences", {
        text: "Escalate to the legal team immediately when a customer mentions legal action or a lawyer",
      })
    ).body.id;
    const rare = (await api("POST", "/experiences", { text: "Pin the xylograph-7 firmware before flashing" })).body.id;

    // Vector only: a paraphrase without one shared word.
    const sue = await api("POST", "/retrieve", { query: "the user says they will sue us", kinds: ["experience"], lambda: 0 });
    const hit = sue.body.items.find((i: any) => i.id === legal);
    expect(hit).toMatchObject({ match: "vector", lexical: 0 });
    expect(hit.sim).toBeGreaterThanOrEqual(0.3);

    // Lexical only: a word the word vectors do not know, with the vector gate shut by the agent's threshold.
    await api("PATCH", "/config", { similarityThreshold: 0.95 });
    const firmware = await api("POST", "/retrieve", { query: "which xylograph firmware?", kinds: ["experience"], lambda: 0 });
    expect(firmware.body.items.map((i: any) => i.id)).toEqual([rare]);
    expect(firmware.body.items[0]).toMatchObject({ match: "lexical", relevance: 0.5 });
    expect(firmware.body.items[0].lexical).toBeGreaterThan(0);
    expect(firmware.body.items[0].sim).toBeLessThan(0.95);

    // Both: first in each channel is first overall, with relevance 1.
    await api("PATCH", "/config", { similarityThreshold: null });
    const both = await api("POST", "/retrieve", {
      query: "validate the tool output against its JSON schema",
      kinds: ["experience"],
      lambda: 0,
    });
    expect(both.body.items[0]).toMatchObject({ id: ids[1], match: "vector", relevance: 1 });
    expect(both.body.items[0].lexical).toBeGreaterThan(0);
    for (const item of both.body.items) {
      expect(item.relevance).toBeGreaterThan(0);
      expect(item.relevance).toBeLessThanOrEqual(1);
    }
    expect(both.body.items.map((i: any) => i.relevance)).toEqual([...both.body.items.map((i: any) => i.relevance)].sort((x, y) => y - x));
  });

  it("uses the embedder's own threshold unless the agent configures one", async () => {
    const { api } = await agentFixture();
    const id = (await api("POST", "/experiences", { text: "authorization" })).body.id;
    // Feature hashing scores these ≈ 0.27 through shared character trigrams; the stemmer keeps them apart.
    const found = await api("POST", "/retrieve", { query: "unauthorized" });
    expect(found.body.items.map((i: any) => [i.id, i.match])).toEqual([[id, "vector"]]);
    expect(found.body.items[0].sim).toBeLessThan(0.3);
    await api("PATCH", "/config", { similarityThreshold: 0.3 });
    expect((await api("POST", "/retrieve", { query: "unauthorized" })).body.items).toEqual([]);
  });

  it("leaves a word found in too many memories to the vector channel and still matches the rare ones", async () => {
    const { api } = await agentFixture();
    const common = Array.from({ length: LEXICAL_MAX_TERM_DOCS + 1 }, (_, i) => ({
      op: "create",
      experience: { text: `Warm the deploy cache for service ${i}` },
    }));
    const seeded = await api("POST", "/library/batch", { reason: "seed", operations: common });
    expect(seeded.status, JSON.stringify(seeded.body)).toBe(200);
    const rare = (await api("POST", "/experiences", { text: "Pin the xylograph firmware before every deploy" })).body.id;
    // "deploy" is in every lesson: scoring it would mean a BM25 pass over the whole library.
    expect(await lexicalIds(api, "deploy")).toEqual([]);
    expect(await lexicalIds(api, "xylograph deploy")).toEqual([rare]);
  });

  it("the README example: the 429 lesson comes first for 'the payments API returned 429'", async () => {
    for (const embedder of ["hash", "semantic"]) {
      const { api } = await agentFixture();
      await api("PATCH", "/config", { embedder: { provider: embedder } });
      for (const text of LESSONS) await api("POST", "/experiences", { text });
      const lesson = (
        await api("POST", "/experiences", { text: "When an API answers 429, wait for Retry-After, then retry with exponential backoff" })
      ).body.id;
      const r = await api("POST", "/retrieve", { query: "the payments API returned 429" });
      expect(r.body.items[0]?.id, embedder).toBe(lesson);
    }
  });
});
