import { beforeAll, describe, expect, it } from "vitest";
import { call, expectProblem, newAgent, newKey, newTenant } from "../helpers";

/**
 * Every tenant-scoped route, called with tenant B's admin key on tenant A's resources, must
 * answer exactly as for a resource that does not exist, and leave A's data untouched.
 */
describe("cross-tenant isolation", () => {
  let a: Awaited<ReturnType<typeof newTenant>>;
  let b: Awaited<ReturnType<typeof newTenant>>;
  let agentA: string;
  let keyA: { id: string };

  beforeAll(async () => {
    a = await newTenant();
    b = await newTenant();
    agentA = await newAgent(a.apiKey);
    keyA = await newKey(a.apiKey, "read");
    await call("PATCH", `/v1/agents/${agentA}/config`, { key: a.apiKey, body: { k2: 7 } });
    await call("POST", `/v1/agents/${agentA}/experiences`, { key: a.apiKey, body: { text: "tenant A's lesson" } });
  });

  const matrix: [string, (agent: string, key: string) => string, unknown?][] = [
    ["GET", (ag) => `/v1/agents/${ag}`],
    ["DELETE", (ag) => `/v1/agents/${ag}`],
    ["GET", (ag) => `/v1/agents/${ag}/config`],
    ["PATCH", (ag) => `/v1/agents/${ag}/config`, { k2: 3 }],
    ["DELETE", (_ag, key) => `/v1/keys/${key}`],
    ["GET", (ag) => `/v1/agents/${ag}/experiences`],
    ["POST", (ag) => `/v1/agents/${ag}/experiences`, { text: "planted lesson" }],
    ["POST", (ag) => `/v1/agents/${ag}/library/batch`, { reason: "x", operations: [{ op: "create", experience: { text: "planted" } }] }],
    ["GET", (ag) => `/v1/agents/${ag}/library/versions`],
    ["GET", (ag) => `/v1/agents/${ag}/library/export`],
    ["POST", (ag) => `/v1/agents/${ag}/library/rollback`, { version: 0 }],
    ["GET", (ag) => `/v1/agents/${ag}/cases`],
    ["POST", (ag) => `/v1/agents/${ag}/retrieve`, { query: "lesson" }],
    ["GET", (ag) => `/v1/agents/${ag}/prompt?query=lesson`],
    ["POST", (ag) => `/v1/agents/${ag}/rewards`, { episodeId: "ep-1", outcome: "failure" }],
    ["GET", (ag) => `/v1/agents/${ag}/analytics`],
    ["POST", (ag) => `/v1/agents/${ag}/episodes`, { task: "planted task" }],
    ["GET", (ag) => `/v1/agents/${ag}/episodes`],
    ["GET", (ag) => `/v1/agents/${ag}/jobs`],
  ];

  for (const [method, path, body] of matrix) {
    it(`${method} ${path(":agent", ":key")} of another tenant is a 404 like a missing one`, async () => {
      const foreign = await call(method, path(agentA, keyA.id), { key: b.apiKey, body });
      const missing = await call(method, path("does-not-exist", "000000000000"), { key: b.apiKey, body });
      expectProblem(foreign, 404, "not-found");
      expect(missing.status).toBe(404);
      expect(foreign.body.title).toBe(missing.body.title);
    });
  }

  it("lists never include another tenant's agents or keys", async () => {
    const agents = await call("GET", "/v1/agents", { key: b.apiKey });
    expect(agents.body.items.map((x: any) => x.agentId)).not.toContain(agentA);
    const keys = await call("GET", "/v1/keys", { key: b.apiKey });
    expect(keys.body.items.map((x: any) => x.id)).not.toContain(keyA.id);
  });

  it("PUT of an agent id another tenant uses creates a separate agent", async () => {
    const r = await call("PUT", `/v1/agents/${agentA}`, { key: b.apiKey, body: {} });
    expect(r.status).toBe(201);
    const cfgB = await call("GET", `/v1/agents/${agentA}/config`, { key: b.apiKey });
    expect(cfgB.body.k2).toBe(5);
  });

  it("tenant A's data is unchanged afterwards", async () => {
    expect((await call("GET", `/v1/agents/${agentA}`, { key: a.apiKey })).status).toBe(200);
    expect((await call("GET", `/v1/agents/${agentA}/config`, { key: a.apiKey })).body.k2).toBe(7);
    const keys = await call("GET", "/v1/keys", { key: a.apiKey });
    expect(keys.body.items.find((k: any) => k.id === keyA.id).revokedAt).toBeNull();
    const lib = await call("GET", `/v1/agents/${agentA}/experiences?status=all`, { key: a.apiKey });
    expect(lib.body.items.map((e: any) => e.text)).toEqual(["tenant A's lesson"]);
    expect((await call("GET", `/v1/agents/${agentA}/episodes`, { key: a.apiKey })).body.items).toHaveLength(0);
  });
});
