import { Client, StreamableHTTPClientTransport, type CallToolResult } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { forgetSessionVersions } from "../../src/mcp/session-versions";
import { agentFixture } from "../memory/setup";
import { probedWorker } from "./probe";

/**
 * Session consistency (issue 44): writes name the library version they made, plain HTTP reads may
 * ask for it in a header, and the MCP server remembers it per session. Reads here go through a
 * Worker whose staleness bound (a minute) is far longer than the test, so a read that does not ask
 * for the version is answered from the snapshot taken before the write.
 */
const STALE = { READ_STALENESS_MS: "60000" };
const ids = (body: { items: { id: string }[] }) => body.items.map((i) => i.id);

async function warmAgent() {
  const f = await agentFixture();
  const w = probedWorker({}, STALE);
  expect((await f.api("POST", "/experiences", { text: "Pin the container image digest before a rollout" })).status).toBe(201);
  const read = (body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    w.call("POST", `/v1/agents/${f.agentId}/retrieve`, f.t.apiKey, { query: "canary rollout image", ...body }, headers);
  expect((await read()).body.servedFrom).toBe("edge");
  return { ...f, w, read };
}

describe("X-Praxis-Library-Version and X-Praxis-Min-Version", () => {
  it("every lesson write answers its version in the header; a read naming it in X-Praxis-Min-Version sees the write", async () => {
    const f = await warmAgent();
    const added = await f.api("POST", "/experiences", { text: "Bake the canary rollout for ten minutes before promoting it" });
    expect(added.status).toBe(201);
    expect(added.headers.get("x-praxis-library-version")).toBe(String(added.body.libraryVersion));

    const stale = await f.read();
    expect(stale.body.libraryVersion).toBeLessThan(added.body.libraryVersion);
    expect(ids(stale.body)).not.toContain(added.body.id);

    const header = { "X-Praxis-Min-Version": String(added.body.libraryVersion) };
    const mine = await f.read({}, header);
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    expect(mine.body.libraryVersion).toBeGreaterThanOrEqual(added.body.libraryVersion);
    expect(ids(mine.body)).toContain(added.body.id);

    const patched = await f.api("PATCH", `/experiences/${added.body.id}`, { text: "Bake every canary rollout for ten minutes first" });
    expect(patched.headers.get("x-praxis-library-version")).toBe(String(patched.body.libraryVersion));
    const prompt = await f.w.call("GET", `/v1/agents/${f.agentId}/prompt?query=canary`, f.t.apiKey, undefined, {
      "x-praxis-min-version": String(patched.body.libraryVersion),
    });
    expect(prompt.body.libraryVersion).toBeGreaterThanOrEqual(patched.body.libraryVersion);
    expect(prompt.body.prompt).toContain("Bake every canary rollout");

    const batch = await f.api("POST", "/library/batch", {
      reason: "tidy",
      operations: [{ op: "create", experience: { text: "Drain the old pool only after the canary is healthy" } }],
    });
    expect(batch.headers.get("x-praxis-library-version")).toBe(String(batch.body.libraryVersion));
    const rollback = await f.api("POST", "/library/rollback", { version: added.body.libraryVersion });
    expect(rollback.status, JSON.stringify(rollback.body)).toBe(200);
    expect(rollback.headers.get("x-praxis-library-version")).toBe(String(rollback.body.libraryVersion));
    const deleted = await f.api("DELETE", `/experiences/${added.body.id}`);
    expect(deleted.headers.get("x-praxis-library-version")).toBe(String(deleted.body.libraryVersion));
    expect(deleted.body.libraryVersion).toBeGreaterThan(rollback.body.libraryVersion);
    // Reads carry their version in the body, not the header: the header names what a write made.
    expect(mine.headers.get("x-praxis-library-version")).toBeNull();
  });

  it("the body's minVersion wins over the header; a malformed header is a 400 problem", async () => {
    const f = await warmAgent();
    const added = await f.api("POST", "/experiences", { text: "Bake the canary rollout for ten minutes before promoting it" });
    const ahead = String(added.body.libraryVersion + 1000);
    const r = await f.read({ minVersion: added.body.libraryVersion }, { "x-praxis-min-version": ahead });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(ids(r.body)).toContain(added.body.id);

    const bad = await f.read({}, { "x-praxis-min-version": "soon" });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("content-type")).toContain("application/problem+json");
  });

  it("/openapi.json names both headers: on every write that answers a version, and on the reads that take one", async () => {
    const f = await agentFixture();
    const spec = (await probedWorker().call("GET", "/openapi.json", f.t.apiKey)).body;
    const writes = [
      ["/v1/agents/{agentId}/experiences", "post", "201"],
      ["/v1/agents/{agentId}/experiences/{id}", "patch", "200"],
      ["/v1/agents/{agentId}/experiences/{id}", "delete", "200"],
      ["/v1/agents/{agentId}/library/batch", "post", "200"],
      ["/v1/agents/{agentId}/library/rollback", "post", "200"],
      ["/v1/agents/{agentId}/library/import", "post", "200"],
      ["/v1/agents/{agentId}/quarantine/{id}/release", "post", "200"],
    ];
    for (const [path, method, status] of writes)
      expect(Object.keys(spec.paths[path!][method!].responses[status!].headers ?? {}), `${method} ${path}`).toContain(
        "X-Praxis-Library-Version",
      );
    for (const [path, method] of [
      ["/v1/agents/{agentId}/retrieve", "post"],
      ["/v1/agents/{agentId}/prompt", "get"],
    ])
      expect(spec.paths[path!][method!].parameters.map((p: { name: string }) => p.name)).toContain("x-praxis-min-version");
  });
});

describe("MCP remembers its writes per session", () => {
  afterEach(() => vi.restoreAllMocks());

  async function mcpOver(w: ReturnType<typeof probedWorker>, key: string, session?: string) {
    const transport = new StreamableHTTPClientTransport(new URL("http://praxis.test/mcp"), {
      fetch: async (url, init) => (await w.fetch(new Request(url, init))).res,
      requestInit: { headers: { authorization: `Bearer ${key}`, ...(session ? { "mcp-session-id": session } : {}) } },
    });
    const client = new Client({ name: "ryw-test", version: "1.0.0" });
    await client.connect(transport);
    return async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  }

  it("add_experience, then get_prompt and pull_experiences at once, see the lesson; a read outside the session may not", async () => {
    const f = await warmAgent();
    const tool = await mcpOver(f.w, f.t.apiKey);
    const added = await tool("add_experience", { agentId: f.agentId, text: "Bake the canary rollout for ten minutes before promoting it" });
    expect(added.isError, JSON.stringify(added.content)).toBeFalsy();
    const lesson = added.structuredContent as { id: string; libraryVersion: number };

    const outside = await f.read();
    expect(outside.body.libraryVersion).toBeLessThan(lesson.libraryVersion);

    const pulled = await tool("pull_experiences", { agentId: f.agentId, query: "canary rollout" });
    expect(pulled.isError, JSON.stringify(pulled.content)).toBeFalsy();
    expect((pulled.structuredContent as { items: { id: string }[] }).items.map((i) => i.id)).toContain(lesson.id);
    const prompt = await tool("get_prompt", { agentId: f.agentId, query: "canary" });
    const block = prompt.structuredContent as { prompt: string; libraryVersion: number };
    expect(block.libraryVersion).toBeGreaterThanOrEqual(lesson.libraryVersion);
    expect(block.prompt).toContain("Bake the canary rollout");
  });

  it("another isolate of the location finds the session's version in the location's cache; without that cache (workers.dev) the isolate's own memory serves", async () => {
    const f = await warmAgent();
    const tool = await mcpOver(f.w, f.t.apiKey);
    const write = async (text: string) => (await tool("add_experience", { agentId: f.agentId, text })).structuredContent as { id: string };
    const pull = async (query: string) =>
      (
        (await tool("pull_experiences", { agentId: f.agentId, query, limit: 20 })).structuredContent as { items: { id: string }[] }
      ).items.map((i) => i.id);

    const first = await write("Bake the canary rollout for ten minutes before promoting it");
    forgetSessionVersions();
    expect(await pull("canary rollout")).toContain(first.id);

    const noCache = { match: async () => undefined, put: async () => undefined, delete: async () => false } as unknown as Cache;
    vi.spyOn(caches, "open").mockResolvedValue(noCache);
    const second = await write("Drain the old pool only after the canary is healthy");
    expect(await pull("drain the old pool")).toContain(second.id);
  });

  it("sessions are told apart by Mcp-Session-Id: another session of the same key does not wait for this one's writes", async () => {
    const f = await warmAgent();
    const mine = await mcpOver(f.w, f.t.apiKey, "session-a");
    const theirs = await mcpOver(f.w, f.t.apiKey, "session-b");
    const added = (await mine("add_experience", { agentId: f.agentId, text: "Bake the canary rollout for ten minutes" }))
      .structuredContent as { id: string; libraryVersion: number };
    const other = (await theirs("pull_experiences", { agentId: f.agentId, query: "canary rollout" })).structuredContent as {
      libraryVersion: number;
    };
    expect(other.libraryVersion).toBeLessThan(added.libraryVersion);
    const own = (await mine("pull_experiences", { agentId: f.agentId, query: "canary rollout" })).structuredContent as {
      items: { id: string }[];
    };
    expect(own.items.map((i) => i.id)).toContain(added.id);
  });

  it("a remembered version the library never reaches (the agent made again) is forgotten, not a lasting 409", async () => {
    const f = await warmAgent();
    const tool = await mcpOver(f.w, f.t.apiKey);
    for (const text of ["Lesson one about canaries", "Lesson two about canaries", "Lesson three about canaries"])
      expect((await tool("add_experience", { agentId: f.agentId, text })).isError).toBeFalsy();
    expect((await f.api("DELETE", "")).status).toBe(200);
    expect((await f.api("PUT", "", { displayName: "again" })).status).toBe(201);
    const fresh = await tool("add_experience", { agentId: f.agentId, text: "A lesson of the new agent about canaries" });
    const lesson = fresh.structuredContent as { id: string; libraryVersion: number };
    const pulled = await tool("pull_experiences", { agentId: f.agentId, query: "canaries" });
    expect(pulled.isError, JSON.stringify(pulled.content)).toBeFalsy();
    expect((pulled.structuredContent as { items: { id: string }[] }).items.map((i) => i.id)).toContain(lesson.id);
  });
});
