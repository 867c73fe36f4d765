import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { signPayload } from "../../src/core/webhook-signature";
import { call, expectProblem, newAgent, newKey, newTenant, uniq, type Res } from "../helpers";

const HOOK = "/v1/hooks/session-end";
const nowSec = () => Math.floor(Date.now() / 1000);

async function createSecret(adminKey: string): Promise<string> {
  const r = await call("POST", "/v1/webhook-secret", { key: adminKey });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.secret;
}

/** A tenant with an agent and a webhook secret. */
async function setup() {
  const t = await newTenant();
  const agentId = await newAgent(t.apiKey);
  const secret = await createSecret(t.apiKey);
  return { ...t, agentId, secret };
}

function session(tenantId: string, agentId: string, over: Record<string, unknown> = {}) {
  return {
    tenantId,
    agentId,
    sessionId: uniq("sess"),
    task: "Export the quarterly report as CSV",
    events: [
      { type: "message", role: "user", content: "Export Q3 as CSV, please" },
      { type: "tool_call", name: "export_csv", input: { quarter: 3 }, error: "TimeoutError: upstream took 30s" },
      { type: "tool_call", name: "export_csv", input: { quarter: 3, stream: true }, result: { rows: 1200 } },
      { type: "message", role: "assistant", content: "Done: report.csv (1200 rows) — café ✓" },
    ],
    outcome: "success",
    score: 0.9,
    answer: "report.csv",
    ...over,
  };
}

/** Posts `raw` signed with `secret` at time `t` (unless a signature header is given outright). */
async function deliver(raw: string, opts: { secret?: string; t?: number; signature?: string | null; tenant?: string } = {}): Promise<Res> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  const signature =
    opts.signature !== undefined ? opts.signature : opts.secret ? await signPayload(opts.secret, opts.t ?? nowSec(), raw) : null;
  if (signature !== null) headers["x-praxis-signature"] = signature;
  if (opts.tenant) headers["x-praxis-tenant"] = opts.tenant;
  return call("POST", HOOK, { raw, headers });
}

async function episodes(key: string, agentId: string): Promise<any[]> {
  const r = await call("GET", `/v1/agents/${agentId}/episodes`, { key });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.items;
}

async function tenantSecret(tenantId: string): Promise<string | null> {
  const row = await env.DB.prepare("SELECT webhook_secret AS s FROM tenants WHERE id = ?").bind(tenantId).first<{ s: string | null }>();
  return row?.s ?? null;
}

describe("webhook secret", () => {
  it("creates a whsec_ secret shown once, stores it, and audits without the secret", async () => {
    const t = await newTenant();
    const r = await call("POST", "/v1/webhook-secret", { key: t.apiKey });
    expect(r.status).toBe(201);
    expect(r.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(typeof r.body.createdAt).toBe("number");
    expect(Math.abs(r.body.createdAt - Date.now())).toBeLessThan(60_000);
    expect(r.body.rotated).toBe(false);
    expect(await tenantSecret(t.tenantId)).toBe(r.body.secret);

    const audit = await env.DB.prepare("SELECT action, detail FROM audit_log WHERE tenant_id = ? AND action LIKE 'webhook-secret.%'")
      .bind(t.tenantId)
      .all<{ action: string; detail: string | null }>();
    expect(audit.results.map((a) => a.action)).toEqual(["webhook-secret.create"]);
    expect(JSON.stringify(audit.results)).not.toContain(r.body.secret);
  });

  it("rotates: the new secret replaces the old one at once", async () => {
    const s = await setup();
    const rotated = await call("POST", "/v1/webhook-secret", { key: s.apiKey });
    expect(rotated.status).toBe(201);
    expect(rotated.body.rotated).toBe(true);
    expect(rotated.body.secret).not.toBe(s.secret);
    expect(await tenantSecret(s.tenantId)).toBe(rotated.body.secret);

    const oldSigned = await deliver(JSON.stringify(session(s.tenantId, s.agentId)), { secret: s.secret });
    expectProblem(oldSigned, 401, "unauthorized");
    const newSigned = await deliver(JSON.stringify(session(s.tenantId, s.agentId)), { secret: rotated.body.secret });
    expect(newSigned.status, JSON.stringify(newSigned.body)).toBe(201);

    const actions = await env.DB.prepare("SELECT action FROM audit_log WHERE tenant_id = ? AND action LIKE 'webhook-secret.%' ORDER BY id")
      .bind(s.tenantId)
      .all<{ action: string }>();
    expect(actions.results.map((a) => a.action)).toEqual(["webhook-secret.create", "webhook-secret.rotate"]);
  });

  it("deletes: 200 then 404, and deliveries are refused afterwards", async () => {
    const s = await setup();
    const del = await call("DELETE", "/v1/webhook-secret", { key: s.apiKey });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ deleted: true });
    expect(await tenantSecret(s.tenantId)).toBeNull();
    expectProblem(await call("DELETE", "/v1/webhook-secret", { key: s.apiKey }), 404, "not-found");

    const r = await deliver(JSON.stringify(session(s.tenantId, s.agentId)), { secret: s.secret });
    expectProblem(r, 401, "unauthorized");
    expect(await episodes(s.apiKey, s.agentId)).toHaveLength(0);

    const actions = await env.DB.prepare("SELECT action FROM audit_log WHERE tenant_id = ? AND action = 'webhook-secret.delete'")
      .bind(s.tenantId)
      .all();
    expect(actions.results).toHaveLength(1);
  });

  it("concurrent creates: exactly one reports a new secret, the rest a rotation; concurrent deletes: one 200, the rest 404", async () => {
    const t = await newTenant();
    const made = await Promise.all(Array.from({ length: 6 }, () => call("POST", "/v1/webhook-secret", { key: t.apiKey })));
    expect(made.map((r) => r.status)).toEqual(made.map(() => 201));
    expect(made.filter((r) => r.body.rotated === false)).toHaveLength(1);
    expect(made.map((r) => r.body.secret)).toContain(await tenantSecret(t.tenantId));
    const gone = await Promise.all(Array.from({ length: 4 }, () => call("DELETE", "/v1/webhook-secret", { key: t.apiKey })));
    expect(gone.map((r) => r.status).sort()).toEqual([200, 404, 404, 404]);
    const actions = await env.DB.prepare("SELECT action FROM audit_log WHERE tenant_id = ? AND action LIKE 'webhook-secret.%'")
      .bind(t.tenantId)
      .all<{ action: string }>();
    expect(actions.results.map((a) => a.action).sort()).toEqual([
      "webhook-secret.create",
      "webhook-secret.delete",
      ...Array.from({ length: 5 }, () => "webhook-secret.rotate"),
    ]);
  });

  it("needs an admin key: write and read keys get 403 and change nothing", async () => {
    const s = await setup();
    for (const scope of ["write", "read"] as const) {
      const k = await newKey(s.apiKey, scope);
      expectProblem(await call("POST", "/v1/webhook-secret", { key: k.apiKey }), 403, "forbidden");
      expectProblem(await call("DELETE", "/v1/webhook-secret", { key: k.apiKey }), 403, "forbidden");
    }
    expectProblem(await call("POST", "/v1/webhook-secret"), 401, "unauthorized");
    expect(await tenantSecret(s.tenantId)).toBe(s.secret);
  });
});

describe("POST /v1/hooks/session-end", () => {
  it("a good signature ingests the session as an ended episode (201), with no API key", async () => {
    const s = await setup();
    const body = session(s.tenantId, s.agentId);
    const r = await deliver(JSON.stringify(body), { secret: s.secret });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.duplicate).toBe(false);
    expect(typeof r.body.episodeId).toBe("string");
    expect(r.body.episode).toMatchObject({
      id: r.body.episodeId,
      task: body.task,
      sessionId: body.sessionId,
      status: "ended",
      outcome: "success",
      score: 0.9,
      answer: "report.csv",
    });
    expect(r.body.episode.attempts.length).toBeGreaterThan(0);

    const got = await call("GET", `/v1/agents/${s.agentId}/episodes/${r.body.episodeId}`, { key: s.apiKey });
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(got.body).toMatchObject({ id: r.body.episodeId, sessionId: body.sessionId, status: "ended" });
    const list = await episodes(s.apiKey, s.agentId);
    expect(list.map((e) => e.id)).toEqual([r.body.episodeId]);
  });

  it("verifies the exact raw bytes (whitespace, key order, non-ASCII), with the tenant from the header", async () => {
    const s = await setup();
    const { tenantId, ...rest } = session(s.tenantId, s.agentId, { task: "Résumé — naïve ✓ task" });
    const raw = `\n  ${JSON.stringify({ ...rest, tenantId }, null, 3)}  \n`;
    const r = await deliver(raw, { secret: s.secret, tenant: s.tenantId });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.episode.task).toBe("Résumé — naïve ✓ task");
  });

  it("a bad signature is 401 and stores nothing", async () => {
    const s = await setup();
    const raw = JSON.stringify(session(s.tenantId, s.agentId));
    const wrongSecret = await deliver(raw, { secret: "whsec_not-the-secret" });
    expectProblem(wrongSecret, 401, "unauthorized");
    expect(wrongSecret.body.detail).toMatch(/does not verify/);

    // Signed correctly, then tampered with in transit.
    const sig = await signPayload(s.secret, nowSec(), raw);
    expectProblem(await deliver(raw.replace("success", "failure"), { signature: sig }), 401, "unauthorized");
    // Signed under one timestamp, replayed with another.
    const t = nowSec();
    const v1 = (await signPayload(s.secret, t, raw)).split(",")[1];
    expectProblem(await deliver(raw, { signature: `t=${t - 1},${v1}` }), 401, "unauthorized");

    const missing = await deliver(raw, { signature: null });
    expectProblem(missing, 401, "unauthorized");
    expect(missing.body.detail).toMatch(/X-Praxis-Signature/);
    const malformed = await deliver(raw, { signature: "sha256=abc" });
    expectProblem(malformed, 401, "unauthorized");
    expect(malformed.body.detail).toMatch(/form/);

    expect(await episodes(s.apiKey, s.agentId)).toHaveLength(0);
  });

  it("a stale timestamp (over 5 minutes old) is 401 and stores nothing", async () => {
    const s = await setup();
    const r = await deliver(JSON.stringify(session(s.tenantId, s.agentId)), { secret: s.secret, t: nowSec() - 360 });
    expectProblem(r, 401, "unauthorized");
    expect(r.body.detail).toMatch(/300 seconds/);
    expect(await episodes(s.apiKey, s.agentId)).toHaveLength(0);
  });

  it("a timestamp too far in the future is 401 and stores nothing", async () => {
    const s = await setup();
    const r = await deliver(JSON.stringify(session(s.tenantId, s.agentId)), { secret: s.secret, t: nowSec() + 600 });
    expectProblem(r, 401, "unauthorized");
    expect(r.body.detail).toMatch(/300 seconds/);
    expect(await episodes(s.apiKey, s.agentId)).toHaveLength(0);
  });

  it("a replayed session id returns the first episode (200, duplicate) and changes nothing", async () => {
    const s = await setup();
    const first = session(s.tenantId, s.agentId);
    const a = await deliver(JSON.stringify(first), { secret: s.secret });
    expect(a.status, JSON.stringify(a.body)).toBe(201);

    // The platform retries the same delivery (freshly signed).
    const b = await deliver(JSON.stringify(first), { secret: s.secret });
    expect(b.status, JSON.stringify(b.body)).toBe(200);
    expect(b.body.duplicate).toBe(true);
    expect(b.body.episodeId).toBe(a.body.episodeId);
    expect(b.body.episode).toEqual(a.body.episode);

    // Same session id, different content: still the first episode, unchanged.
    const changed = { ...first, task: "Something else entirely", outcome: "failure", score: 0 };
    const c = await deliver(JSON.stringify(changed), { secret: s.secret });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    expect(c.body.duplicate).toBe(true);
    expect(c.body.episode).toEqual(a.body.episode);

    const list = await episodes(s.apiKey, s.agentId);
    expect(list.map((e) => e.id)).toEqual([a.body.episodeId]);
    const got = await call("GET", `/v1/agents/${s.agentId}/episodes/${a.body.episodeId}`, { key: s.apiKey });
    expect(got.status).toBe(200);
    expect(got.body.task).toBe(first.task);
    expect(got.body.outcome).toBe("success");
  });

  it("another tenant's secret is 401; an unknown tenant reads the same as a wrong signature", async () => {
    const a = await setup();
    const b = await setup();
    const raw = JSON.stringify(session(a.tenantId, a.agentId));
    const viaBody = await deliver(raw, { secret: b.secret });
    expectProblem(viaBody, 401, "unauthorized");
    const viaHeader = await deliver(raw, { secret: b.secret, tenant: a.tenantId });
    expectProblem(viaHeader, 401, "unauthorized");

    const ghost = "t_00000000000000000000";
    const unknown = await deliver(JSON.stringify(session(ghost, a.agentId)), { secret: a.secret });
    expectProblem(unknown, 401, "unauthorized");
    expect(unknown.body.detail).toBe(viaBody.body.detail);

    // A tenant that exists but has no secret is indistinguishable too.
    const bare = await newTenant();
    const bareAgent = await newAgent(bare.apiKey);
    const noSecret = await deliver(JSON.stringify(session(bare.tenantId, bareAgent)), { secret: a.secret });
    expectProblem(noSecret, 401, "unauthorized");
    expect(noSecret.body.detail).toBe(viaBody.body.detail);

    expect(await episodes(a.apiKey, a.agentId)).toHaveLength(0);
  });

  it("the body's tenantId must equal X-Praxis-Tenant (400), so a tenant cannot write into another", async () => {
    const a = await setup();
    const b = await setup();
    // Signed correctly by b for b, but the body targets a's agent.
    const r = await deliver(JSON.stringify(session(a.tenantId, a.agentId)), { secret: b.secret, tenant: b.tenantId });
    expectProblem(r, 400, "validation-failed");
    expect(r.body.errors.map((e: any) => e.path)).toContain("tenantId");
    expect(await episodes(a.apiKey, a.agentId)).toHaveLength(0);
  });

  it("an unknown agent is 404 and creates nothing", async () => {
    const s = await setup();
    const r = await deliver(JSON.stringify(session(s.tenantId, "no-such-agent")), { secret: s.secret });
    expectProblem(r, 404, "not-found");
    expect(r.body.detail).toContain("no-such-agent");
    const agents = await call("GET", "/v1/agents", { key: s.apiKey });
    expect(agents.body.items.map((x: any) => x.agentId)).toEqual([s.agentId]);
  });

  it("an invalid body with a valid signature is 400 listing the bad fields", async () => {
    const s = await setup();
    const bad = session(s.tenantId, s.agentId, {
      task: "",
      outcome: "won",
      events: [{ type: "message", role: "robot", content: "hi" }, { type: "telepathy" }],
      extra: true,
    });
    const r = await deliver(JSON.stringify(bad), { secret: s.secret });
    expectProblem(r, 400, "validation-failed");
    const paths: string[] = r.body.errors.map((e: any) => e.path);
    expect(paths).toContain("task");
    expect(paths).toContain("outcome");
    expect(paths).toContain("events.0.role");
    expect(paths.some((p) => p.startsWith("events.1"))).toBe(true);
    expect(await episodes(s.apiKey, s.agentId)).toHaveLength(0);
  });

  it("a body that is not JSON: 400 malformed-json once authenticated, 401 when no tenant can be named", async () => {
    const s = await setup();
    const raw = "{not json";
    expectProblem(await deliver(raw, { secret: s.secret, tenant: s.tenantId }), 400, "malformed-json");
    const anonymous = await deliver(raw, { secret: s.secret });
    expectProblem(anonymous, 401, "unauthorized");
    expect(anonymous.body.detail).toMatch(/X-Praxis-Tenant/);
    // Unsigned garbage never gets as far as the JSON parser.
    expectProblem(await deliver(raw, { signature: null, tenant: s.tenantId }), 401, "unauthorized");
  });

  it("is described in the OpenAPI document with its headers and body", async () => {
    const r = await call("GET", "/openapi.json");
    expect(r.status, JSON.stringify(r.body).slice(0, 500)).toBe(200);
    const op = r.body.paths["/v1/hooks/session-end"]?.post;
    expect(op).toBeDefined();
    const params = (op.parameters ?? []).map((p: any) => `${p.in}:${String(p.name).toLowerCase()}`);
    expect(params).toEqual(expect.arrayContaining(["header:x-praxis-signature", "header:x-praxis-tenant"]));
    expect(JSON.stringify(op.requestBody)).toContain("SessionEnd");
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["200", "201", "400", "401", "404"]));
    expect(r.body.paths["/v1/webhook-secret"]?.post).toBeDefined();
    expect(r.body.paths["/v1/webhook-secret"]?.delete).toBeDefined();
  });
});
