import { describe, expect, it } from "vitest";
import { call, expectProblem, newAgent, newTenant } from "../helpers";

describe("agent config", () => {
  it("starts from the documented defaults", async () => {
    const t = await newTenant();
    const agentId = await newAgent(t.apiKey);
    const r = await call("GET", `/v1/agents/${agentId}/config`, { key: t.apiKey });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      lambda: { observation: 0.2, reasoning: 0.5, planning: 0.7, action: 0.3, reflection: 0.6, default: 0.5 },
      alpha: 0.1,
      defaultQ: 0.5,
      rewardMapping: { success: 1, failure: -1, partial: 0.3, timeout: -0.5 },
      k1: 20,
      k2: 5,
      similarityThreshold: null,
    });
  });

  it("merges partial updates field by field and persists them", async () => {
    const t = await newTenant();
    const agentId = await newAgent(t.apiKey);
    const r = await call("PATCH", `/v1/agents/${agentId}/config`, {
      key: t.apiKey,
      body: { lambda: { planning: 0.9 }, rewardMapping: { partial: 0.5 }, k2: 8 },
    });
    expect(r.status).toBe(200);
    expect(r.body.lambda).toMatchObject({ planning: 0.9, observation: 0.2 });
    expect(r.body.rewardMapping).toMatchObject({ partial: 0.5, success: 1 });
    expect(r.body.k2).toBe(8);
    const again = await call("GET", `/v1/agents/${agentId}/config`, { key: t.apiKey });
    expect(again.body).toEqual(r.body);
  });

  it("a nested patch leaves the fields it does not name as they were, not at their defaults", async () => {
    const t = await newTenant();
    const agentId = await newAgent(t.apiKey);
    const patch = (body: unknown) => call("PATCH", `/v1/agents/${agentId}/config`, { key: t.apiKey, body });
    expect(
      (
        await patch({
          lambda: { observation: 0.1 },
          decay: { baseDecay: 0.2 },
          retention: { jobsDays: 7 },
          rewardMapping: { timeout: -0.9 },
        })
      ).status,
    ).toBe(200);
    const r = await patch({
      lambda: { planning: 0.9 },
      decay: { threshold: 0.2 },
      retention: { casesDays: 30 },
      rewardMapping: { success: 0.8 },
    });
    expect(r.status).toBe(200);
    expect(r.body.lambda).toMatchObject({ observation: 0.1, planning: 0.9 });
    expect(r.body.decay).toMatchObject({ baseDecay: 0.2, threshold: 0.2 });
    expect(r.body.retention).toMatchObject({ jobsDays: 7, casesDays: 30 });
    expect(r.body.rewardMapping).toMatchObject({ timeout: -0.9, success: 0.8 });
  });

  it("rejects invalid values with field paths and keeps the old config", async () => {
    const t = await newTenant();
    const agentId = await newAgent(t.apiKey);
    const bad = await call("PATCH", `/v1/agents/${agentId}/config`, {
      key: t.apiKey,
      body: { alpha: 0, lambda: { planning: 1.5 }, k1: 2.5 },
    });
    expectProblem(bad, 400, "validation-failed");
    expect(bad.body.errors.map((e: any) => e.path).sort()).toEqual(["alpha", "k1", "lambda.planning"]);
    const crossField = await call("PATCH", `/v1/agents/${agentId}/config`, { key: t.apiKey, body: { k1: 3 } });
    expectProblem(crossField, 422, "unprocessable");
    expect(crossField.body.errors[0].path).toBe("k2");
    const cfg = await call("GET", `/v1/agents/${agentId}/config`, { key: t.apiKey });
    expect(cfg.body).toMatchObject({ alpha: 0.1, k1: 20, k2: 5, lambda: { planning: 0.7 } });
  });
});
