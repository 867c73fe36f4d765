import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { expectProblem } from "../helpers";
import { practiceEnv } from "../practice/harness";
import { captureQueues, evaluationFixture, evaluationLlm } from "./harness";

afterEach(() => vi.restoreAllMocks());

const cappedEnv = { ...practiceEnv, EVALUATION_MAX_PER_TENANT: "3" } as typeof practiceEnv;

async function post(path: string, key: string, body: unknown) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`http://praxis.test${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
    cappedEnv,
    ctx,
  );
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

describe("the per-tenant cap on concurrent evaluations", () => {
  it("five concurrent creates against a cap of 3: three start, two get 429, and a comparison needing two slots is not created", async () => {
    const f = await evaluationFixture(2);
    captureQueues();
    evaluationLlm({ right: () => true });
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        post(`/v1/agents/${f.agentId}/evaluations`, f.t.apiKey, { datasetId: f.datasetId, seed: i, policy: { kind: "llm" } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([202, 202, 202, 429, 429]);
    for (const r of results.filter((x) => x.status === 429)) expectProblem(r, 429, "rate-limited");
    const going = await env.DB.prepare("SELECT COUNT(*) AS n FROM evaluations WHERE tenant_id = ? AND status IN ('queued', 'running')")
      .bind(f.t.tenantId)
      .first<{ n: number }>();
    expect(going?.n).toBe(3);
    const cmp = await post(`/v1/agents/${f.agentId}/evaluations/compare`, f.t.apiKey, {
      datasetId: f.datasetId,
      a: { version: 0 },
      b: { version: 0 },
      seed: 1,
      policy: { kind: "llm" },
    });
    expectProblem(cmp, 429, "rate-limited");
    const comparisons = await env.DB.prepare("SELECT COUNT(*) AS n FROM evaluation_comparisons WHERE tenant_id = ?")
      .bind(f.t.tenantId)
      .first<{ n: number }>();
    expect(comparisons?.n).toBe(0);
  });
});
