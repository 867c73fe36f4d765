import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { newTenant } from "../helpers";

afterEach(() => vi.restoreAllMocks());

async function get(path: string, bindings: typeof env, key?: string) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`http://praxis.test${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} }),
    bindings,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, type: res.headers.get("content-type"), body: (await res.json()) as Record<string, any> };
}

describe("variables the deployment cannot read", () => {
  it("refuse every request with a 503 naming each one and what it must be, and the log says so", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const bad = { ...env, MAX_BODY_BYTES: "1MB", EPISODE_TTL_MINUTES: "-1", LOG_LEVEL: "error" };
    for (const path of ["/healthz", "/v1/agents"]) {
      const r = await get(path, bad);
      expect(r.status).toBe(503);
      expect(r.type).toMatch(/^application\/problem\+json/);
      expect(r.body).toMatchObject({
        type: expect.stringMatching(/service-unavailable$/),
        problems: [
          expect.stringMatching(/^MAX_BODY_BYTES must be a whole number/),
          expect.stringMatching(/^EPISODE_TTL_MINUTES must be a whole number/),
        ],
      });
      expect(r.body.detail).toContain('(got "1MB")');
    }
    expect(logged.mock.calls.map((c) => String(c[0])).join("\n")).toContain("invalid configuration");
  });

  it("an invalid LLM or embedder variable refuses only what needs it", async () => {
    const t = await newTenant();
    const bad = { ...env, LLM_BASE_URL: "ftp://llm.test", LLM_MODEL: "m", EMBEDDING_DIMS: "lots" };
    expect((await get("/healthz", bad)).status).toBe(200);
    expect((await get("/v1/agents", bad, t.apiKey)).status).toBe(200);
  });
});
