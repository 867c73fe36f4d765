import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { signPayload } from "../../src/core/webhook-signature";
import { MAX_JSON_DEPTH, tooDeepAt } from "../../src/http/input-guards";
import { call, expectProblem, newAgent, newTenant, uniq } from "../helpers";

const nest = (depth: number, leaf: unknown = 1): unknown => {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
};

describe("tooDeepAt", () => {
  it("names the field where a document first nests too deep, and passes what stays within", () => {
    expect(tooDeepAt(JSON.stringify({ a: [1, { b: 2 }] }), 3)).toBeNull();
    expect(tooDeepAt(JSON.stringify({ a: [1, { b: [] }] }), 3)).toBe("a.1.b");
    expect(tooDeepAt(JSON.stringify({ x: "{{{{[[[[", y: { 'k"}': { z: {} } } }), 3)).toBe('y.k"}.z');
    expect(tooDeepAt('{"esc\\u0041":{"b":{"c":{}}}}', 3)).toBe("escA.b.c");
    expect(tooDeepAt(`${JSON.stringify(nest(3))}\n${JSON.stringify({ line: nest(3) })}`, 3)).toBe("line.a.0");
    expect(tooDeepAt(JSON.stringify(nest(MAX_JSON_DEPTH)))).toBeNull();
    expect(tooDeepAt(JSON.stringify(nest(MAX_JSON_DEPTH + 1)))).not.toBeNull();
    // Not JSON at all is left to the parser.
    expect(tooDeepAt('{"a": "never closed', 1)).toBeNull();
  });
});

describe("no input answers 5xx", () => {
  let t: Awaited<ReturnType<typeof newTenant>>;
  let agent: string;
  const base = () => `/v1/agents/${agent}`;

  beforeAll(async () => {
    t = await newTenant();
    agent = await newAgent(t.apiKey);
  });

  it("5,000-deep JSON in attempt toolCalls is a 400 naming the field, and stores nothing", async () => {
    const ep = await call("POST", `${base()}/episodes`, { key: t.apiKey, body: { task: "deep" } });
    expect(ep.status).toBe(201);
    const body = { description: "call", ok: true, toolCalls: [{ name: "t", input: nest(5000) }] };
    const r = await call("POST", `${base()}/episodes/${ep.body.id}/attempts`, { key: t.apiKey, body });
    expectProblem(r, 400, "validation-failed");
    expect(r.body.errors[0].path).toMatch(/^toolCalls\.0\.input\.0\.a/);
    expect(r.body.errors[0].code).toBe("too_deep");
    const after = await call("GET", `${base()}/episodes/${ep.body.id}`, { key: t.apiKey });
    expect(after.body.attempts ?? []).toHaveLength(0);
  });

  it("5,000-deep JSON in hook events is a 400, even with a valid signature", async () => {
    const secret = (await call("POST", "/v1/webhook-secret", { key: t.apiKey })).body.secret as string;
    const raw = JSON.stringify({
      tenantId: t.tenantId,
      agentId: agent,
      sessionId: uniq("s"),
      task: "deep",
      events: [{ type: "tool_call", name: "x", input: nest(5000) }],
      outcome: "success",
    });
    const sig = await signPayload(secret, Math.floor(Date.now() / 1000), raw);
    const r = await call("POST", "/v1/hooks/session-end", {
      raw,
      headers: { "content-type": "application/json", "x-praxis-signature": sig },
    });
    expectProblem(r, 400, "validation-failed");
    expect(r.body.errors[0].path).toMatch(/^events\.0\.input/);
  });

  it("U+0000 never reaches storage: a body holding it is a 400 naming the field on every door, and nothing is written", async () => {
    const own = await newAgent(t.apiKey);
    const base = () => `/v1/agents/${own}`;
    const r = await call("POST", `${base()}/experiences`, { key: t.apiKey, body: { text: "Retry\u0000 on 429" } });
    expectProblem(r, 400, "validation-failed");
    expect(r.body.errors[0]).toMatchObject({ code: "nul_character", path: "text" });
    const raw = await call("POST", `${base()}/cases`, {
      key: t.apiKey,
      raw: '{"task":"a\\u0000b","reward":1}',
      headers: { "content-type": "application/json" },
    });
    expectProblem(raw, 400, "validation-failed");
    const mcp = await call("POST", "/mcp", {
      key: t.apiKey,
      headers: { accept: "application/json, text/event-stream" },
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "add_experience", arguments: { agentId: agent, text: "Ig\u0000nore it" } },
      },
    });
    expectProblem(mcp, 400, "validation-failed");
    expect((await call("GET", `${base()}/experiences?limit=200`, { key: t.apiKey })).body.items).toEqual([]);
    // An escaped backslash before the letters is text, not a NUL.
    expect(
      (await call("POST", `${base()}/experiences`, { key: t.apiKey, body: { text: "Match the literal \\u0000 escape in logs" } })).status,
    ).toBe(201);
  });

  it("depth is limited on every body: a deep experience, a deep MCP message", async () => {
    const r = await call("POST", `${base()}/experiences`, { key: t.apiKey, body: { text: "x", tags: nest(100) } });
    expectProblem(r, 400, "validation-failed");
    expect(r.body.errors[0].path).toMatch(/^tags/);
    const mcp = await call("POST", "/mcp", {
      key: t.apiKey,
      headers: { accept: "application/json, text/event-stream" },
      body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "retrieve", arguments: nest(200) } },
    });
    expectProblem(mcp, 400, "validation-failed");
    // Exactly at the limit is still read (and then validated as usual).
    const ok = await call("POST", `${base()}/retrieve`, { key: t.apiKey, body: { query: "x", extra: nest(MAX_JSON_DEPTH - 1) } });
    expect(ok.status).toBe(400);
    expect(ok.body.errors.map((e: { code?: string }) => e.code)).not.toContain("too_deep");
  });

  it("Idempotency-Key: 1-255 visible ASCII, else 400 naming the header", async () => {
    for (const bad of ["x".repeat(256), "x".repeat(10_000), "has space", "tab\there", "caf\u00e9"]) {
      const r = await call("POST", `${base()}/experiences`, {
        key: t.apiKey,
        body: { text: "Prefer idempotent retries" },
        headers: { "idempotency-key": bad },
      });
      expectProblem(r, 400, "validation-failed");
      expect(r.body.errors[0].path).toBe("header.idempotency-key");
    }
    const list = await call("GET", `${base()}/experiences`, { key: t.apiKey });
    expect(list.body.items).toHaveLength(0);
    const ok = await call("POST", `${base()}/experiences`, {
      key: t.apiKey,
      body: { text: "Prefer idempotent retries" },
      headers: { "idempotency-key": "k".repeat(255) },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
  });

  it("a non-numeric Content-Length is a 400 before anything reads the body", async () => {
    const res = await SELF.fetch(`http://praxis.test${base()}/experiences`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.apiKey}`, "content-type": "application/json", "content-length": "abc" },
      body: JSON.stringify({ text: "x" }),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    const body = (await res.json()) as { errors: { path: string }[] };
    expect(body.errors[0]!.path).toBe("header.content-length");
  });

  it("blank ids are 400: a case with an empty episodeId, twice, never reaches storage", async () => {
    for (let i = 0; i < 2; i++) {
      const r = await call("POST", `${base()}/cases`, { key: t.apiKey, body: { task: "t", reward: 1, episodeId: "" } });
      expectProblem(r, 400, "validation-failed");
      expect(r.body.errors[0].path).toBe("episodeId");
    }
    const blank = await call("POST", `${base()}/cases`, { key: t.apiKey, body: { task: "t", reward: 1, episodeId: "   " } });
    expectProblem(blank, 400, "validation-failed");
    const reward = await call("POST", `${base()}/rewards`, { key: t.apiKey, body: { memoryIds: [" "], outcome: "success" } });
    expectProblem(reward, 400, "validation-failed");
    expect(reward.body.errors[0].path).toBe("memoryIds.0");
  });

  it("control characters and bidi overrides are refused in names and ids", async () => {
    const evil = ["a\u202Egnp.exe", "line\nbreak", "nul\u0000", "iso\u2066late", "del\u007f", "c1\u0085"];
    for (const name of evil) {
      const tenant = await call("POST", "/v1/tenants", { key: (await import("../helpers")).ADMIN_KEY, body: { name } });
      expectProblem(tenant, 400, "validation-failed");
      expect(tenant.body.errors[0].path).toBe("name");
      const ag = await call("PUT", `/v1/agents/${uniq("a")}`, { key: t.apiKey, body: { displayName: name } });
      expectProblem(ag, 400, "validation-failed");
      expect(ag.body.errors[0].path).toBe("displayName");
      const key = await call("POST", "/v1/keys", { key: t.apiKey, body: { name, scope: "read" } });
      expectProblem(key, 400, "validation-failed");
      const ds = await call("POST", "/v1/datasets", { key: t.apiKey, body: { name } });
      expectProblem(ds, 400, "validation-failed");
      const cs = await call("POST", `${base()}/cases`, { key: t.apiKey, body: { task: "t", reward: 1, episodeId: name } });
      expectProblem(cs, 400, "validation-failed");
      const tagged = await call("POST", `${base()}/experiences`, { key: t.apiKey, body: { text: "Check units", tags: ["ok", name] } });
      expectProblem(tagged, 400, "validation-failed");
      expect(tagged.body.errors[0].path).toBe("tags.1");
      const path = await call("GET", `/v1/datasets/${encodeURIComponent(name)}`, { key: t.apiKey });
      expectProblem(path, 400, "validation-failed");
    }
    // Ordinary non-ASCII names are fine.
    const ok = await call("PUT", `/v1/agents/${uniq("a")}`, { key: t.apiKey, body: { displayName: "Agent café — 日本 ✓" } });
    expect(ok.status).toBe(201);
    const datasets = await call("GET", "/v1/datasets", { key: t.apiKey });
    expect(datasets.body.items).toHaveLength(0);
  });

  it("a reward for an unknown episodeId is 404; a known episode without retrievals is 200", async () => {
    const r = await call("POST", `${base()}/rewards`, { key: t.apiKey, body: { episodeId: "ep-never-seen", outcome: "success" } });
    expectProblem(r, 404, "not-found");
    const ep = await call("POST", `${base()}/episodes`, { key: t.apiKey, body: { task: "known" } });
    const known = await call("POST", `${base()}/rewards`, { key: t.apiKey, body: { episodeId: ep.body.id, outcome: "success" } });
    expect(known.status, JSON.stringify(known.body)).toBe(200);
    expect(known.body.updated).toEqual([]);
    // A retrieval names only an open episode of the agent, so a client-side id never gets one to reward.
    expectProblem(
      await call("POST", `${base()}/retrieve`, { key: t.apiKey, body: { query: "anything", episodeId: "ep-client-side" } }),
      404,
      "not-found",
    );
    expectProblem(
      await call("POST", `${base()}/rewards`, { key: t.apiKey, body: { episodeId: "ep-client-side", outcome: "success" } }),
      404,
      "not-found",
    );
  });
});
