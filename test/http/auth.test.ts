import { describe, expect, it } from "vitest";
import { ADMIN_KEY, call, expectProblem, newAgent, newKey, newTenant } from "../helpers";

describe("authentication", () => {
  it("rejects a missing Authorization header with 401 and a challenge", async () => {
    const r = await call("GET", "/v1/agents");
    expectProblem(r, 401, "unauthorized");
    expect(r.headers.get("www-authenticate")).toContain("Bearer");
  });

  it("rejects a malformed header and a malformed key", async () => {
    expectProblem(await call("GET", "/v1/agents", { headers: { authorization: "Basic abc" } }), 401, "unauthorized");
    expectProblem(await call("GET", "/v1/agents", { key: "not-a-praxis-key" }), 401, "unauthorized");
  });

  it("rejects an unknown key that is well formed", async () => {
    const r = await call("GET", "/v1/agents", { key: "pxk_0123456789ab_" + "A".repeat(43) });
    expectProblem(r, 401, "unauthorized");
  });

  it("rejects a revoked key on the very next request", async () => {
    const t = await newTenant();
    const k = await newKey(t.apiKey, "write");
    expect((await call("GET", "/v1/agents", { key: k.apiKey })).status).toBe(200);
    const del = await call("DELETE", `/v1/keys/${k.id}`, { key: t.apiKey });
    expect(del.status).toBe(200);
    expect(del.body.revokedAt).toBeTypeOf("number");
    expectProblem(await call("GET", "/v1/agents", { key: k.apiKey }), 401, "unauthorized");
  });

  it("never returns key secrets or hashes when listing", async () => {
    const t = await newTenant();
    const k = await newKey(t.apiKey, "read");
    const list = await call("GET", "/v1/keys", { key: t.apiKey });
    expect(list.status).toBe(200);
    const text = JSON.stringify(list.body);
    expect(text).not.toContain(k.apiKey);
    expect(text).not.toContain(t.apiKey);
    expect(list.body.items.map((i: any) => i.id).sort()).toEqual([t.keyId, k.id].sort());
    expect(list.body.items.every((i: any) => !("hash" in i))).toBe(true);
  });

  it("refuses to revoke the last admin key", async () => {
    const t = await newTenant();
    expectProblem(await call("DELETE", `/v1/keys/${t.keyId}`, { key: t.apiKey }), 409, "conflict");
    expect((await call("GET", "/v1/agents", { key: t.apiKey })).status).toBe(200);
  });

  it("requires the operator key to create tenants", async () => {
    const t = await newTenant();
    expectProblem(await call("POST", "/v1/tenants", { key: t.apiKey, body: { name: "x" } }), 401);
    expectProblem(await call("POST", "/v1/tenants", { key: ADMIN_KEY + "x", body: { name: "x" } }), 401);
    expectProblem(await call("POST", "/v1/tenants", { body: { name: "x" } }), 401);
  });
});

describe("scopes", () => {
  it("read keys can read but not write", async () => {
    const t = await newTenant();
    const agentId = await newAgent(t.apiKey);
    const read = await newKey(t.apiKey, "read");
    expect((await call("GET", `/v1/agents/${agentId}`, { key: read.apiKey })).status).toBe(200);
    expect((await call("GET", `/v1/agents/${agentId}/config`, { key: read.apiKey })).status).toBe(200);
    expectProblem(await call("PUT", `/v1/agents/new-one`, { key: read.apiKey, body: {} }), 403, "forbidden");
    expectProblem(await call("PATCH", `/v1/agents/${agentId}/config`, { key: read.apiKey, body: { alpha: 0.2 } }), 403);
    expectProblem(await call("DELETE", `/v1/agents/${agentId}`, { key: read.apiKey }), 403);
    expectProblem(await call("POST", "/v1/keys", { key: read.apiKey, body: { name: "x", scope: "read" } }), 403);
    expect((await call("GET", "/v1/agents", { key: t.apiKey })).body.items).toHaveLength(1);
  });

  it("write keys manage agents but not keys, and cannot delete agents", async () => {
    const t = await newTenant();
    const write = await newKey(t.apiKey, "write");
    const agentId = await newAgent(write.apiKey);
    expect((await call("PATCH", `/v1/agents/${agentId}/config`, { key: write.apiKey, body: { alpha: 0.2 } })).status).toBe(200);
    expectProblem(await call("GET", "/v1/keys", { key: write.apiKey }), 403);
    expectProblem(await call("DELETE", `/v1/agents/${agentId}`, { key: write.apiKey }), 403);
  });

  it("agent-restricted keys see only their agents", async () => {
    const t = await newTenant();
    const a = await newAgent(t.apiKey);
    const b = await newAgent(t.apiKey);
    const k = await newKey(t.apiKey, "write", [a]);
    expect((await call("GET", `/v1/agents/${a}`, { key: k.apiKey })).status).toBe(200);
    expectProblem(await call("GET", `/v1/agents/${b}`, { key: k.apiKey }), 403);
    const list = await call("GET", "/v1/agents", { key: k.apiKey });
    expect(list.body.items.map((x: any) => x.agentId)).toEqual([a]);
  });
});
