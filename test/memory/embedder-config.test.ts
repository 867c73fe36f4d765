import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import { resetEmbedderCache } from "../../src/adapters/embedder-factory";
import { hashEmbed } from "../../src/core/hash-embedder";
import { call, expectProblem, newKey } from "../helpers";
import { agentFixture } from "./setup";

const EMBEDDINGS = "http://embeddings.test/v1";
const EMBEDDING_ENV = { EMBEDDING_BASE_URL: EMBEDDINGS, EMBEDDING_API_KEY: "emb-test-not-real" };

/** An OpenAI-compatible embeddings endpoint serving a model Praxis has no size for (like Ollama's nomic-embed-text, 768 dims). */
function fakeEmbeddings(dims = 768) {
  const bodies: any[] = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const req = new Request(input as RequestInfo, init);
    if (!req.url.startsWith(EMBEDDINGS)) throw new Error(`Unexpected outbound fetch to ${req.url}`);
    const body = (await req.json()) as { model: string; input: string[] };
    bodies.push(body);
    const data = body.input.map((text, index) => ({ object: "embedding", index, embedding: Array.from(hashEmbed(text, dims)) }));
    return Response.json({ object: "list", data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } });
  });
  return bodies;
}

/** Re-initialises the agent's Durable Object under other deployment variables, as a redeploy would. */
async function redeploy(tenantId: string, agentId: string, vars: Record<string, string>) {
  const stub = env.AGENT_MEMORY.getByName(`${tenantId}:${agentId}`) as DurableObjectStub<AgentMemory>;
  await runInDurableObject(stub, async (obj) => {
    const instance = obj as any;
    instance.env = { ...instance.env, ...vars };
    await instance.destroy();
  });
  return stub;
}

afterEach(() => {
  vi.restoreAllMocks();
  resetEmbedderCache();
});

describe("embedders outside the built-in tables", () => {
  it("learns an unknown model's size on first use, remembers it across a restart, and never sends `dimensions`", async () => {
    const { t, agentId, api } = await agentFixture();
    const stub = await redeploy(t.tenantId, agentId, EMBEDDING_ENV);
    const bodies = fakeEmbeddings(768);
    expect((await api("PATCH", "/config", { embedder: { provider: "openai", model: "nomic-embed-text" } })).status).toBe(200);
    const created = await api("POST", "/experiences", { text: "Retry HTTP 429 with exponential backoff" });
    expect(created.status).toBe(201);
    const hit = await api("POST", "/retrieve", { query: "retry HTTP 429 backoff" });
    expect(hit.body.items.map((i: any) => [i.id, i.match])).toEqual([[created.body.id, "vector"]]);
    expect(bodies.every((b) => !("dimensions" in b))).toBe(true);

    // A fresh isolate: the embedder has not seen an answer yet, the agent's storage remembers the size.
    resetEmbedderCache();
    await runInDurableObject(stub, async (obj) => {
      const instance = obj as any;
      instance.mem.vectors = await instance.buildVectorStore();
      expect(instance.mem.vectors.index?.dims).toBe(768);
      await instance.mem.vectors.load();
    });
    const again = await api("POST", "/retrieve", { query: "retry HTTP 429 backoff" });
    expect(again.body.items.map((i: any) => [i.id, i.match])).toEqual([[created.body.id, "vector"]]);
  });

  it("answers a 503 naming the size settings when the declared size is wrong, and a PATCH fixes it", async () => {
    const { t, agentId, api } = await agentFixture();
    await redeploy(t.tenantId, agentId, EMBEDDING_ENV);
    fakeEmbeddings(768);
    expect((await api("PATCH", "/config", { embedder: { provider: "openai", model: "nomic-embed-text", dims: 512 } })).status).toBe(200);
    const refused = await api("POST", "/experiences", { text: "Validate tool output JSON" });
    expectProblem(refused, 503, "embedder-not-configured");
    expect(refused.body.settings).toEqual(["EMBEDDING_DIMS", "embedder.dims"]);
    expect(refused.body.detail).toMatch(/returned 768 dims, expected 512/);
    expect((await api("GET", "/experiences")).body.items).toEqual([]);

    expect((await api("PATCH", "/config", { embedder: { provider: "openai", model: "nomic-embed-text", dims: 768 } })).status).toBe(200);
    expect((await api("POST", "/experiences", { text: "Validate tool output JSON" })).status).toBe(201);
  });

  it("takes EMBEDDING_DIMS as the size of EMBEDDING_MODEL's vectors", async () => {
    const { t, agentId, api } = await agentFixture();
    await redeploy(t.tenantId, agentId, { ...EMBEDDING_ENV, EMBEDDER: "openai", EMBEDDING_MODEL: "bge-m3", EMBEDDING_DIMS: "1024" });
    const bodies = fakeEmbeddings(1024);
    expect((await api("POST", "/experiences", { text: "Cache database queries that repeat" })).status).toBe(201);
    expect((await api("GET", "/config")).body.embedder).toBeNull();
    expect(bodies.map((b) => [b.model, "dimensions" in b])).toEqual([["bge-m3", false]]);
    expect((await api("POST", "/retrieve", { query: "cache repeated database queries" })).body.items).toHaveLength(1);
  });

  it("never bricks the agent on a bad EMBEDDING_DIMS: it answers, names the setting in a 503, and a PATCH fixes it", async () => {
    const { t, agentId, api } = await agentFixture();
    await redeploy(t.tenantId, agentId, { ...EMBEDDING_ENV, EMBEDDER: "openai", EMBEDDING_MODEL: "bge-m3", EMBEDDING_DIMS: "lots" });
    expect((await api("GET", "/config")).status).toBe(200);
    expect((await api("GET", "/experiences")).status).toBe(200);
    const refused = await api("POST", "/experiences", { text: "Cache database queries that repeat" });
    expectProblem(refused, 503, "embedder-not-configured");
    expect(refused.body.settings).toEqual(["EMBEDDING_DIMS"]);
    expectProblem(await api("POST", "/retrieve", { query: "cache" }), 503, "embedder-not-configured");

    expect((await api("PATCH", "/config", { embedder: { provider: "hash" } })).status).toBe(200);
    expect((await api("POST", "/experiences", { text: "Cache database queries that repeat" })).status).toBe(201);
  });

  it("never bricks the agent when the deployment's embedder lacks its endpoint", async () => {
    const { t, agentId, api } = await agentFixture();
    await redeploy(t.tenantId, agentId, { EMBEDDER: "openai", EMBEDDING_BASE_URL: "" });
    const refused = await api("POST", "/retrieve", { query: "anything" });
    expectProblem(refused, 503, "embedder-not-configured");
    expect(refused.body.settings).toEqual(["EMBEDDING_BASE_URL", "LLM_BASE_URL"]);
    expect((await api("PATCH", "/config", { embedder: { provider: "hash" } })).status).toBe(200);
    expect((await api("POST", "/retrieve", { query: "anything" })).status).toBe(200);
  });
});

describe("an embedder that spends the operator's key", () => {
  it("needs an admin key to choose, and each of its requests is a ledger row counted in the tenant's daily budget", async () => {
    const { t, agentId, api } = await agentFixture();
    await redeploy(t.tenantId, agentId, EMBEDDING_ENV);
    const bodies = fakeEmbeddings(768);
    const writer = await newKey(t.apiKey, "write");
    const choose = { embedder: { provider: "openai", model: "nomic-embed-text" } };
    expectProblem(await call("PATCH", `/v1/agents/${agentId}/config`, { key: writer.apiKey, body: choose }), 403, "forbidden");
    expect(
      (await call("PATCH", `/v1/agents/${agentId}/config`, { key: writer.apiKey, body: { embedder: { provider: "hash" } } })).status,
    ).toBe(200);
    expect((await api("PATCH", "/config", choose)).status).toBe(200);

    expect((await api("POST", "/experiences", { text: "Retry HTTP 429 with exponential backoff" })).status).toBe(201);
    const rows = await env.DB.prepare(
      "SELECT agent_id, purpose, role, model, state, tokens_in, tokens_out FROM usage_ledger WHERE tenant_id = ?",
    )
      .bind(t.tenantId)
      .all();
    expect(rows.results.length).toBe(bodies.length);
    expect(rows.results[0]).toEqual({
      agent_id: agentId,
      purpose: "embed",
      role: "embedder",
      model: "nomic-embed-text",
      state: "settled",
      tokens_in: 1,
      tokens_out: 0,
    });
    const used = await env.DB.prepare("SELECT tokens FROM tenant_daily_usage WHERE tenant_id = ?")
      .bind(t.tenantId)
      .first<{ tokens: number }>();
    expect(used!.tokens).toBe(bodies.length);

    // A budget with no room for the next request's estimate: the write is refused before any request.
    await env.DB.prepare("UPDATE tenants SET daily_token_budget = ? WHERE id = ?")
      .bind(used!.tokens + 2, t.tenantId)
      .run();
    const sent = bodies.length;
    const refused = await api("POST", "/experiences", { text: "Validate every tool output against its JSON schema before use" });
    expectProblem(refused, 429, "budget-exceeded");
    expect(refused.headers.get("retry-after")).toBeTruthy();
    expect(bodies.length).toBe(sent);
    expect((await api("GET", "/experiences")).body.items).toHaveLength(1);
  });
});
