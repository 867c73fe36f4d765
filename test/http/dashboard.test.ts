import { describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { call, expectProblem, newKey, newTenant } from "../helpers";

const get = (path: string, headers: Record<string, string> = {}) => SELF.fetch(`http://praxis.test${path}`, { headers });

describe("dashboard", () => {
  it("serves server-rendered shells that load only the Worker's own assets", async () => {
    for (const path of [
      "/dashboard",
      "/dashboard/usage",
      "/dashboard/agents/bot-1",
      "/dashboard/agents/bot-1/versions",
      "/dashboard/agents/bot-1/runs/run-1",
      "/dashboard/agents/bot-1/lessons/exp_1",
      "/dashboard/agents/bot-1/episodes",
      "/dashboard/agents/bot-1/episodes/ep_1",
      "/dashboard/libraries",
      "/dashboard/libraries/lib_1",
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/html");
      expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
      const html = await res.text();
      expect(html.startsWith("<!doctype html>")).toBe(true);
      expect(html).toContain('<label for="api-key">API key</label>');
      const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      expect(sources.filter((s) => /^(https?:)?\/\//.test(s))).toEqual([]);
      expect(sources).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^\/dashboard\/static\/uplot\.js\?v=/),
          expect.stringMatching(/^\/dashboard\/static\/app\.js\?v=/),
        ]),
      );
    }
    expect(await (await get("/dashboard/agents/bot-1/runs/run-1")).text()).toContain('data-run-id="run-1"');
    expect(await (await get("/dashboard/libraries/lib_1")).text()).toContain('data-library-id="lib_1"');
  });

  it("serves the bundled uPlot and the client script with cache headers", async () => {
    const html = await (await get("/dashboard")).text();
    const uplot = /src="(\/dashboard\/static\/uplot\.js\?v=[^"]+)"/.exec(html)![1]!;
    const res = await get(uplot);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/javascript");
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(await res.text()).toContain("uPlot");
    const etag = res.headers.get("etag")!;
    expect((await get(uplot, { "if-none-match": etag })).status).toBe(304);

    const stale = await get("/dashboard/static/app.js?v=old");
    expect(stale.headers.get("cache-control")).toBe("public, max-age=0, must-revalidate");
    expect(await stale.text()).toContain("sessionStorage");
    const css = await get("/dashboard/static/uplot.css");
    expect(css.headers.get("content-type")).toContain("text/css");
    expect((await get("/dashboard/static/nope.js")).status).toBe(404);
  });
});

describe("GET /v1/keys/current", () => {
  it("names the calling key's scope and agents, whatever its scope", async () => {
    const t = await newTenant();
    const admin = await call("GET", "/v1/keys/current", { key: t.apiKey });
    expect(admin.status).toBe(200);
    expect(admin.body).toMatchObject({ id: t.keyId, tenantId: t.tenantId, scope: "admin", agentIds: null, revokedAt: null });
    const read = await newKey(t.apiKey, "read", ["bot-1"]);
    const r = await call("GET", "/v1/keys/current", { key: read.apiKey });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: read.id, scope: "read", agentIds: ["bot-1"] });
    expect(r.body).not.toHaveProperty("apiKey");
    expectProblem(await call("GET", "/v1/keys/current"), 401);
  });
});
