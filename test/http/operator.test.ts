import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/core/api-key";
import { ADMIN_KEY, call, expectProblem, newAgent, newKey, newTenant, uniq } from "../helpers";

const kvRecord = async (apiKey: string) => env.PRAXIS_KEYS!.get(`key:${await sha256Hex(apiKey)}`, "json") as Promise<any>;

describe("operator: tenants and key rotation", () => {
  it("lists tenants newest first, page by page with opaque cursors, and never a secret", async () => {
    const names = [uniq("list-a"), uniq("list-b"), uniq("list-c")];
    const made = [];
    for (const name of names) made.push(await newTenant(name));
    await call("POST", "/v1/webhook-secret", { key: made[0]!.apiKey });

    const seen: any[] = [];
    let cursor: string | null = null;
    do {
      const r: any = await call("GET", `/v1/tenants?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { key: ADMIN_KEY });
      expect(r.status).toBe(200);
      expect(r.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.items);
      cursor = r.body.nextCursor;
    } while (cursor);
    expect(new Set(seen.map((t) => t.tenantId)).size).toBe(seen.length);
    const mine = made.map((m) => seen.find((t) => t.tenantId === m.tenantId));
    expect(mine.map((t) => t.name)).toEqual(names);
    expect(mine[0]).toMatchObject({ activeKeys: 1, hasWebhookSecret: true });
    expect(mine[1]).toMatchObject({ activeKeys: 1, hasWebhookSecret: false });
    // Newest first.
    expect(seen.indexOf(mine[2])).toBeLessThan(seen.indexOf(mine[0]));
    expect(JSON.stringify(seen)).not.toMatch(/pxk_|whsec_/);
  });

  it("a name another tenant has is a 409 naming that tenant, and creates nothing, unless allowDuplicateName", async () => {
    const name = uniq("same-name");
    const first = await newTenant(name);
    const countNamed = async () => {
      const row = await env.DB.prepare("SELECT count(*) AS n FROM tenants WHERE name = ?").bind(name).first<{ n: number }>();
      return row!.n;
    };
    const again = await call("POST", "/v1/tenants", { key: ADMIN_KEY, body: { name } });
    expectProblem(again, 409, "conflict");
    expect(again.body.tenantId).toBe(first.tenantId);
    expect(again.body.detail).toContain(name);
    expect(await countNamed()).toBe(1);

    // Two creates at once: the check is in the write's batch, so exactly one gets the name.
    const other = uniq("raced-name");
    const raced = await Promise.all([1, 2, 3].map(() => call("POST", "/v1/tenants", { key: ADMIN_KEY, body: { name: other } })));
    expect(raced.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    const keys = await env.DB.prepare("SELECT count(*) AS n FROM api_keys k JOIN tenants t ON t.id = k.tenant_id WHERE t.name = ?")
      .bind(other)
      .first<{ n: number }>();
    expect(keys!.n).toBe(1);

    const second = await call("POST", "/v1/tenants", { key: ADMIN_KEY, body: { name, allowDuplicateName: true } });
    expect(second.status).toBe(201);
    expect(second.body.tenantId).not.toBe(first.tenantId);
    expect((await call("GET", "/v1/keys/current", { key: second.body.apiKey })).body.tenantId).toBe(second.body.tenantId);
    expect(await countNamed()).toBe(2);
    expectProblem(await call("POST", "/v1/tenants", { key: ADMIN_KEY, body: { name, allowDuplicateName: "yes" } }), 400);
  });

  it("only the operator lists tenants; a bad cursor is a 400", async () => {
    const t = await newTenant();
    expectProblem(await call("GET", "/v1/tenants", { key: t.apiKey }), 401);
    expectProblem(await call("GET", "/v1/tenants"), 401);
    expectProblem(await call("GET", "/v1/tenants?cursor=bm90LWEtY3Vyc29y", { key: ADMIN_KEY }), 400);
  });

  it("the operator rotates a tenant's admin key: the new one works, the old one is refused and tombstoned in KV", async () => {
    const t = await newTenant();
    const agentId = await newAgent(t.apiKey);
    expectProblem(await call("POST", `/v1/tenants/${t.tenantId}/keys/rotate`, { key: t.apiKey, body: {} }), 401);

    const r = await call("POST", `/v1/tenants/${t.tenantId}/keys/rotate`, { key: ADMIN_KEY, body: {} });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.apiKey).toMatch(/^pxk_/);
    expect(r.body.revoked).toEqual([{ id: t.keyId, edgeCache: "written" }]);
    expectProblem(await call("GET", `/v1/agents/${agentId}`, { key: t.apiKey }), 401);
    expect(await kvRecord(t.apiKey)).toMatchObject({ keyId: t.keyId, revoked: true });
    expect((await call("GET", `/v1/agents/${agentId}`, { key: r.body.apiKey })).status).toBe(200);
    const current = await call("GET", "/v1/keys/current", { key: r.body.apiKey });
    expect(current.body).toMatchObject({ id: r.body.keyId, tenantId: t.tenantId, scope: "admin", agentIds: null });

    expectProblem(await call("POST", "/v1/tenants/t_nope/keys/rotate", { key: ADMIN_KEY, body: {} }), 404);
    const reader = await newKey(r.body.apiKey, "read");
    expectProblem(await call("POST", `/v1/tenants/${t.tenantId}/keys/rotate`, { key: ADMIN_KEY, body: { keyId: reader.id } }), 422);
  });

  it("a tenant admin rotates a key, its own last admin key included; the copy keeps scope and agents", async () => {
    const t = await newTenant();
    const agentId = await newAgent(t.apiKey);
    const writer = await newKey(t.apiKey, "write", [agentId]);
    const w = await call("POST", `/v1/keys/${writer.id}/rotate`, { key: t.apiKey });
    expect(w.status, JSON.stringify(w.body)).toBe(201);
    expect(w.body).toMatchObject({
      scope: "write",
      agentIds: [agentId],
      name: "write key",
      revoked: { id: writer.id, edgeCache: "written" },
    });
    expectProblem(await call("GET", `/v1/agents/${agentId}`, { key: writer.apiKey }), 401);
    expect((await call("GET", `/v1/agents/${agentId}`, { key: w.body.apiKey })).status).toBe(200);
    // Rotating a revoked key is refused and mints nothing.
    expectProblem(await call("POST", `/v1/keys/${writer.id}/rotate`, { key: t.apiKey }), 404);

    const self = await call("POST", `/v1/keys/${t.keyId}/rotate`, { key: t.apiKey });
    expect(self.status, JSON.stringify(self.body)).toBe(201);
    expectProblem(await call("GET", "/v1/keys", { key: t.apiKey }), 401);
    const keys = await call("GET", "/v1/keys", { key: self.body.apiKey });
    expect(
      keys.body.items
        .filter((k: any) => !k.revokedAt)
        .map((k: any) => k.id)
        .sort(),
    ).toEqual([self.body.id, w.body.id].sort());
    // A write key cannot rotate.
    expectProblem(await call("POST", `/v1/keys/${w.body.id}/rotate`, { key: w.body.apiKey }), 403);
  });
});
