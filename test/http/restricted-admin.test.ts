import { beforeAll, describe, expect, it } from "vitest";
import { call, expectProblem, newAgent, newKey, newTenant } from "../helpers";

/** An admin key restricted to some agents administers those agents only, never the tenant. */
describe("restricted admin keys", () => {
  let t: Awaited<ReturnType<typeof newTenant>>;
  let a: string;
  let b: string;
  let c: string;
  let restricted: { id: string; apiKey: string };

  beforeAll(async () => {
    t = await newTenant();
    a = await newAgent(t.apiKey);
    b = await newAgent(t.apiKey);
    c = await newAgent(t.apiKey);
    restricted = await newKey(t.apiKey, "admin", [a, b]);
  });

  it("mints only keys restricted to a subset of its agents", async () => {
    for (const body of [
      { name: "wide", scope: "read" },
      { name: "wide admin", scope: "admin" },
      { name: "other agent", scope: "write", agentIds: [a, c] },
    ]) {
      expectProblem(await call("POST", "/v1/keys", { key: restricted.apiKey, body }), 403, "forbidden");
    }
    const keys = await call("GET", "/v1/keys", { key: t.apiKey });
    expect(keys.body.items).toHaveLength(2);

    const r = await call("POST", "/v1/keys", { key: restricted.apiKey, body: { name: "sub", scope: "write", agentIds: [b] } });
    expect(r.status).toBe(201);
    expect(r.body.agentIds).toEqual([b]);
    expect((await call("GET", `/v1/agents/${b}`, { key: r.body.apiKey })).status).toBe(200);
    expectProblem(await call("GET", `/v1/agents/${a}`, { key: r.body.apiKey }), 403);
    const revoked = await call("DELETE", `/v1/keys/${r.body.id}`, { key: restricted.apiKey });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).toBeTypeOf("number");
  });

  it("cannot revoke the tenant's admin key or keys reaching other agents", async () => {
    const wide = await newKey(t.apiKey, "read");
    const other = await newKey(t.apiKey, "write", [a, c]);
    for (const id of [t.keyId, wide.id, other.id]) {
      expectProblem(await call("DELETE", `/v1/keys/${id}`, { key: restricted.apiKey }), 403, "forbidden");
    }
    const keys = await call("GET", "/v1/keys", { key: t.apiKey });
    for (const id of [t.keyId, wide.id, other.id]) expect(keys.body.items.find((k: any) => k.id === id).revokedAt).toBeNull();
    expect((await call("GET", "/v1/agents", { key: t.apiKey })).status).toBe(200);
  });

  it("lists only the keys it manages", async () => {
    const list = await call("GET", "/v1/keys", { key: restricted.apiKey });
    expect(list.status).toBe(200);
    expect(list.body.items.length).toBeGreaterThan(0);
    for (const k of list.body.items) expect(k.agentIds.every((x: string) => [a, b].includes(x))).toBe(true);
    expect(list.body.items.map((k: any) => k.id)).toContain(restricted.id);
    expect(list.body.items.map((k: any) => k.id)).not.toContain(t.keyId);
  });

  it("cannot read, rotate or remove the tenant's webhook secret", async () => {
    const first = await call("POST", "/v1/webhook-secret", { key: t.apiKey });
    expect(first.status).toBe(201);
    expectProblem(await call("POST", "/v1/webhook-secret", { key: restricted.apiKey }), 403, "forbidden");
    expectProblem(await call("DELETE", "/v1/webhook-secret", { key: restricted.apiKey }), 403, "forbidden");
    // The secret is untouched: the unrestricted admin key can still remove it exactly once.
    expect((await call("DELETE", "/v1/webhook-secret", { key: t.apiKey })).status).toBe(200);
    expectProblem(await call("DELETE", "/v1/webhook-secret", { key: t.apiKey }), 404);
    // Its own agents it still administers.
    expect((await call("PATCH", `/v1/agents/${a}/config`, { key: restricted.apiKey, body: { k2: 4 } })).status).toBe(200);
    expectProblem(await call("PATCH", `/v1/agents/${c}/config`, { key: restricted.apiKey, body: { k2: 4 } }), 403);
  });

  it("the last unrestricted admin key cannot be revoked while only restricted admins remain", async () => {
    const own = await newTenant();
    const agent = await newAgent(own.apiKey);
    const limited = await newKey(own.apiKey, "admin", [agent]);
    expectProblem(await call("DELETE", `/v1/keys/${own.keyId}`, { key: own.apiKey }), 409, "conflict");
    expect((await call("DELETE", `/v1/keys/${limited.id}`, { key: own.apiKey })).status).toBe(200);
  });
});
