import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { requestId } from "hono/request-id";
import { describe, expect, it } from "vitest";
import { router } from "../../src/http/openapi";
import { requireTenantKey } from "../../src/http/auth";
import { createLogger } from "../../src/core/logger";
import { problemResponse, toProblem } from "../../src/doors/problem";
import { LlmLedger, type LedgerEntry } from "../../src/llm";
import { usageRoutes } from "../../src/routes/usage";
import { expectProblem, newKey, newTenant, type Res } from "../helpers";

/** Rows written in one step after their answer: none open, failed or estimated. */
const ALL_SETTLED = { openCalls: 0, abandonedCalls: 0, failedCalls: 0, estimatedCalls: 0 };

/**
 * The usage routes mounted behind the real tenant-key middleware in a minimal app, so this test
 * does not depend on the route being registered in src/routes/index.ts.
 */
function miniApp() {
  const app = router();
  app.use(requestId({ headerName: "X-Request-Id" }));
  app.use(async (c, next) => {
    c.set("logger", createLogger({}, "error"));
    await next();
  });
  app.use("/v1/*", requireTenantKey);
  app.route("/", usageRoutes);
  app.onError((err, c) => {
    const p = toProblem(err);
    if (p) return problemResponse(p, c.req.path, c.get("requestId"));
    throw err;
  });
  return app;
}
const app = miniApp();

async function get(path: string, key?: string): Promise<Res> {
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(`http://praxis.test${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} }),
    env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, headers: res.headers, body: await res.json() };
}

const D = (d: number, h = 12) => Date.UTC(2026, 4, d, h); // May 2026

async function seed(tenantId: string, rows: Array<[at: number, over: Partial<LedgerEntry>]>) {
  let now = 0;
  const ledger = new LlmLedger(env, { now: () => now });
  for (const [at, over] of rows) {
    now = at;
    await ledger.record({
      tenantId,
      agentId: "a1",
      purpose: "live-extract",
      role: "learner",
      model: "m1",
      tokensIn: 100,
      tokensOut: 10,
      costUsd: 0.01,
      ...over,
    });
  }
}

describe("GET /v1/usage", () => {
  it("groups a tenant's ledger rows in the range, and sees no other tenant's", async () => {
    const t = await newTenant();
    const other = await newTenant();
    await seed(t.tenantId, [
      [D(1), { model: "m1", tokensIn: 100, tokensOut: 10, costUsd: 0.01 }],
      [D(1, 18), { model: "m2", purpose: "live-extract:repair", tokensIn: 50, tokensOut: 5, costUsd: 0.02 }],
      [D(2), { model: "m1", agentId: "a2", role: "judge", purpose: "judge", tokensIn: 300, tokensOut: 30, costUsd: 0.03 }],
      [D(9), { model: "m9", tokensIn: 9999 }],
    ]);
    await seed(other.tenantId, [[D(1), { model: "m1", tokensIn: 123456 }]]);

    const byModel = await get("/v1/usage?from=2026-05-01&to=2026-05-02&groupBy=model", t.apiKey);
    expect(byModel.status).toBe(200);
    expect(byModel.body).toEqual({
      from: D(1, 0),
      to: D(3, 0) - 1,
      groupBy: "model",
      totals: { calls: 3, tokensIn: 450, tokensOut: 45, costUsd: 0.06, ...ALL_SETTLED },
      groups: [
        { key: "m1", calls: 2, tokensIn: 400, tokensOut: 40, costUsd: 0.04, ...ALL_SETTLED },
        { key: "m2", calls: 1, tokensIn: 50, tokensOut: 5, costUsd: 0.02, ...ALL_SETTLED },
      ],
    });

    const byDay = await get(`/v1/usage?from=${D(1, 0)}&to=2026-05-31T00:00:00Z`, t.apiKey);
    expect(byDay.status).toBe(200);
    expect(byDay.body.groupBy).toBe("day");
    expect(byDay.body.groups.map((g: any) => [g.key, g.calls, g.tokensIn])).toEqual([
      ["2026-05-01", 2, 150],
      ["2026-05-02", 1, 300],
      ["2026-05-09", 1, 9999],
    ]);

    const byAgent = await get("/v1/usage?from=2026-05-01&to=2026-05-02&groupBy=agent", t.apiKey);
    expect(byAgent.body.groups.map((g: any) => [g.key, g.calls])).toEqual([
      ["a2", 1],
      ["a1", 2],
    ]);
  });

  it("defaults to the last 30 days", async () => {
    const t = await newTenant();
    const now = Date.now();
    await seed(t.tenantId, [
      [now - 2 * 86_400_000, { tokensIn: 10 }],
      [now - 40 * 86_400_000, { tokensIn: 1000 }],
    ]);
    const r = await get("/v1/usage", t.apiKey);
    expect(r.status).toBe(200);
    expect(r.body.to - r.body.from).toBe(30 * 86_400_000);
    expect(r.body.totals).toMatchObject({ calls: 1, tokensIn: 10 });
  });

  it("shows a key restricted to some agents only those agents' calls", async () => {
    const t = await newTenant();
    const limited = await newKey(t.apiKey, "read", ["a1"]);
    await seed(t.tenantId, [
      [D(1), { agentId: "a1", tokensIn: 100 }],
      [D(1), { agentId: "a2", tokensIn: 200 }],
      [D(1), { agentId: null, tokensIn: 400 }],
    ]);
    const r = await get("/v1/usage?from=2026-05-01&to=2026-05-01&groupBy=agent", limited.apiKey);
    expect(r.status).toBe(200);
    expect(r.body.groups).toEqual([{ key: "a1", calls: 1, tokensIn: 100, tokensOut: 10, costUsd: 0.01, ...ALL_SETTLED }]);
    const all = await get("/v1/usage?from=2026-05-01&to=2026-05-01&groupBy=agent", t.apiKey);
    expect(all.body.totals.tokensIn).toBe(700);
  });

  it("rejects invalid parameters with a 400 naming each field", async () => {
    const t = await newTenant();
    const bad = await get("/v1/usage?from=yesterday&to=2026-13-45&groupBy=tenant", t.apiKey);
    expectProblem(bad, 400, "validation-failed");
    expect(bad.body.errors.map((e: any) => e.path).sort()).toEqual(["query.from", "query.groupBy", "query.to"]);

    const reversed = await get("/v1/usage?from=2026-05-02&to=2026-05-01", t.apiKey);
    expectProblem(reversed, 400, "validation-failed");
    expect(reversed.body.errors.map((e: any) => e.path)).toEqual(["query.from"]);
  });

  it("is described in the OpenAPI document with its query parameters", () => {
    const doc = app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "t", version: "1" } });
    const op = doc.paths?.["/v1/usage"]?.get;
    expect(op).toBeDefined();
    expect(op!.parameters!.map((p: any) => p.name).sort()).toEqual(["from", "groupBy", "to"]);
    const ok = (op!.responses as any)["200"].content["application/json"].schema;
    expect(JSON.stringify(ok)).toContain("UsageReport");
  });

  it("requires a tenant key", async () => {
    expectProblem(await get("/v1/usage"), 401, "unauthorized");
  });
});
