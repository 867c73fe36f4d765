import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { call } from "../helpers";

describe("OpenAPI and docs", () => {
  it("serves an OpenAPI 3.1 document listing every route", async () => {
    const r = await call("GET", "/openapi.json");
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe("3.1.0");
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries<any>(r.body.paths)) {
      for (const m of Object.keys(ops)) documented.add(`${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`);
    }
    const registered = createApp()
      .routes.filter((rt) => rt.method !== "ALL" && !["/openapi.json", "/docs"].includes(rt.path) && !rt.path.startsWith("/dashboard"))
      .map((rt) => `${rt.method} ${rt.path}`);
    expect(registered.length).toBeGreaterThan(8);
    for (const route of registered) expect(documented, route).toContain(route);
    expect(r.body.components.securitySchemes.bearerAuth.scheme).toBe("bearer");
  });

  it("names and describes every operation, so generators produce methods like retrieve and startPracticeRun", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    const ops = Object.entries<any>(doc.paths).flatMap(([path, byMethod]) =>
      Object.entries<any>(byMethod).map(([method, op]) => ({ route: `${method} ${path}`, ...op })),
    );
    expect(ops.length).toBeGreaterThan(60);
    for (const op of ops) {
      expect(op.operationId, op.route).toMatch(/^[a-z][a-zA-Z]+$/);
      expect(op.description?.length ?? 0, op.route).toBeGreaterThan(20);
      expect(op.summary?.length ?? 0, op.route).toBeGreaterThan(3);
    }
    expect(new Set(ops.map((o) => o.operationId)).size).toBe(ops.length);
    const byRoute = Object.fromEntries(ops.map((o) => [o.route, o.operationId]));
    expect(byRoute).toMatchObject({
      "post /v1/agents/{agentId}/retrieve": "retrieve",
      "post /v1/agents/{agentId}/experiences": "addExperience",
      "post /v1/agents/{agentId}/practice-runs": "startPracticeRun",
      "post /v1/agents/{agentId}/episodes/{id}/end": "endEpisode",
    });
    expect(doc.servers.map((s: any) => s.url)).toContain("http://localhost:8787");
    expect(doc.info.license.name).toEqual(expect.any(String));
  });

  it("serves a self-contained docs page", async () => {
    const r = await call("GET", "/docs");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/html");
    expect(r.body).toContain("/v1/agents/{agentId}/config");
    expect(r.body).not.toMatch(/<script[^>]+src=/);
  });

  it("healthz needs no auth", async () => {
    const r = await call("GET", "/healthz");
    expect(r.status).toBe(200);
    expect(r.body.status).toBe("ok");
  });
});
