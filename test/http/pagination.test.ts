import { describe, expect, it } from "vitest";
import { call, expectProblem, newAgent, newKey, newTenant } from "../helpers";

/** Every item of a list, a page of `limit` at a time, following `nextCursor`; also the pages' sizes. */
async function walk(path: string, key: string, limit: number) {
  const items: any[] = [];
  const sizes: number[] = [];
  const cursors: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 50; page++) {
    const sep = path.includes("?") ? "&" : "?";
    const r: any = await call("GET", `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { key });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    items.push(...r.body.items);
    sizes.push(r.body.items.length);
    cursor = r.body.nextCursor;
    if (!cursor) return { items, sizes, cursors };
    cursors.push(cursor);
  }
  throw new Error(`${path}: more than 50 pages`);
}

const makeLibrary = async (key: string, name: string) => {
  const r = await call("POST", "/v1/libraries", { key, body: { name } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.libraryId as string;
};

describe("list pages: every item once, opaque cursors, a foreign cursor is a 400", () => {
  it("shared libraries: all of them a page at a time; a key limited to some gets full pages of those", async () => {
    const t = await newTenant();
    const ids = [];
    for (const name of ["alpha", "beta", "gamma", "delta"]) ids.push(await makeLibrary(t.apiKey, name));

    const all = await walk("/v1/libraries", t.apiKey, 1);
    expect(all.items.map((l) => l.libraryId)).toEqual([...ids].sort());
    expect(all.sizes).toEqual([1, 1, 1, 1]);
    // Cursors say nothing a client could build on: not the id they follow.
    for (const c of all.cursors) expect(ids).not.toContain(c);

    // A key limited to the last two (by id) sees them on its first pages, not pages emptied by the others.
    const sorted = [...ids].sort();
    const limited = await call("POST", "/v1/keys", {
      key: t.apiKey,
      body: { name: "two libraries", scope: "read", libraryIds: sorted.slice(2) },
    });
    expect(limited.status, JSON.stringify(limited.body)).toBe(201);
    const seen = await walk("/v1/libraries", limited.body.apiKey, 1);
    expect(seen.items.map((l) => l.libraryId)).toEqual(sorted.slice(2));
    expect(seen.sizes).toEqual([1, 1]);

    expectProblem(await call("GET", "/v1/libraries?cursor=bm90LWEtY3Vyc29y", { key: t.apiKey }), 400);
    expectProblem(await call("GET", `/v1/libraries?cursor=${sorted[0]}`, { key: t.apiKey }), 400);
  });

  it("a library's subscribers: every agent once, a page at a time", async () => {
    const t = await newTenant();
    const libraryId = await makeLibrary(t.apiKey, "shared");
    const agents = [];
    for (let i = 0; i < 3; i++) {
      const agentId = await newAgent(t.apiKey);
      expect((await call("PUT", `/v1/agents/${agentId}/subscriptions/${libraryId}`, { key: t.apiKey, body: {} })).status).toBe(200);
      agents.push(agentId);
    }
    const subs = await walk(`/v1/libraries/${libraryId}/subscribers`, t.apiKey, 2);
    expect(subs.items.map((s) => s.agentId)).toEqual([...agents].sort());
    expect(subs.sizes).toEqual([2, 1]);
    expectProblem(await call("GET", `/v1/libraries/${libraryId}/subscribers?cursor=${agents[0]}`, { key: t.apiKey }), 400);
  });

  it("API keys: every key once, a page at a time", async () => {
    const t = await newTenant();
    const made = [t.keyId];
    for (const scope of ["read", "write", "admin"] as const) made.push((await newKey(t.apiKey, scope)).id);
    const keys = await walk("/v1/keys", t.apiKey, 3);
    expect(keys.items.map((k) => k.id)).toEqual([...made].sort());
    expect(keys.sizes).toEqual([3, 1]);
    expectProblem(await call("GET", `/v1/keys?cursor=${made[0]}`, { key: t.apiKey }), 400);
  });

  it("agents: every agent once, a page at a time", async () => {
    const t = await newTenant();
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await newAgent(t.apiKey));
    const agents = await walk("/v1/agents", t.apiKey, 2);
    expect(agents.items.map((a) => a.agentId)).toEqual([...made].sort());
    expect(agents.sizes).toEqual([2, 1]);
    expectProblem(await call("GET", "/v1/agents?cursor=bm90LWEtY3Vyc29y", { key: t.apiKey }), 400);
  });
});
