import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, expectProblem, newAgent, newTenant } from "../helpers";

describe("agents", () => {
  it("PUT creates (201) then updates (200); GET returns it", async () => {
    const t = await newTenant();
    const created = await call("PUT", "/v1/agents/helper-1", { key: t.apiKey, body: { displayName: "Helper" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ agentId: "helper-1", displayName: "Helper" });
    const updated = await call("PUT", "/v1/agents/helper-1", { key: t.apiKey, body: { displayName: "Helper Two" } });
    expect(updated.status).toBe(200);
    expect(updated.body.displayName).toBe("Helper Two");
    expect(updated.body.createdAt).toBe(created.body.createdAt);
    const got = await call("GET", "/v1/agents/helper-1", { key: t.apiKey });
    expect(got.body.displayName).toBe("Helper Two");
  });

  it("concurrent PUTs of the same new agent create it exactly once", async () => {
    const t = await newTenant();
    const rs = await Promise.all(Array.from({ length: 8 }, () => call("PUT", "/v1/agents/racer", { key: t.apiKey, body: {} })));
    expect(rs.filter((r) => r.status === 201)).toHaveLength(1);
    expect(rs.every((r) => r.status === 201 || r.status === 200)).toBe(true);
  });

  it("paginates with an opaque cursor in agent id order, without gaps or repeats", async () => {
    const t = await newTenant();
    const ids = ["a-0", "a-1", "a-2", "a-3", "a-4", "a-5", "a-6"];
    for (const id of [...ids].reverse()) await newAgent(t.apiKey, id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = cursor ? `?limit=3&cursor=${encodeURIComponent(cursor)}` : "?limit=3";
      const r = await call("GET", `/v1/agents${q}`, { key: t.apiKey });
      expect(r.status).toBe(200);
      expect(r.body.items.length).toBeLessThanOrEqual(3);
      seen.push(...r.body.items.map((x: any) => x.agentId));
      cursor = r.body.nextCursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(ids);
    expect(pages).toBe(3);
  });

  it("rejects a forged cursor and an out-of-range limit", async () => {
    const t = await newTenant();
    expectProblem(await call("GET", "/v1/agents?cursor=garbage!!", { key: t.apiKey }), 400);
    const r = await call("GET", "/v1/agents?limit=0", { key: t.apiKey });
    expectProblem(r, 400);
    expect(r.body.errors[0].path).toBe("query.limit");
  });

  it("DELETE removes the agent and erases its Durable Object storage", async () => {
    const t = await newTenant();
    const agentId = await newAgent(t.apiKey);
    await call("PATCH", `/v1/agents/${agentId}/config`, { key: t.apiKey, body: { alpha: 0.25 } });
    const stub = env.AGENT_MEMORY.getByName(`${t.tenantId}:${agentId}`);
    const before = await runInDurableObject(stub, (_i, state) => state.storage.sql.exec("SELECT count(*) AS n FROM meta").one().n);
    expect(before).toBe(1);
    const del = await call("DELETE", `/v1/agents/${agentId}`, { key: t.apiKey });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ agentId, deleted: true, storageDeleted: true, runsCancelled: 0, evaluationsCancelled: 0 });
    const tables = await runInDurableObject(stub, (_i, state) =>
      state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf%' ESCAPE '\\'").toArray(),
    );
    expect(tables).toEqual([]);
    expectProblem(await call("GET", `/v1/agents/${agentId}`, { key: t.apiKey }), 404);
    await newAgent(t.apiKey, agentId);
    expect((await call("GET", `/v1/agents/${agentId}/config`, { key: t.apiKey })).body.alpha).toBe(0.1);
  });
});
