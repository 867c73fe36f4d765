import { describe, expect, it } from "vitest";
import { PhaseSchema } from "../../src/core/scoring";
import { defaultAgentConfig } from "../../src/core/agent-config";
import { agentFixture } from "../memory/setup";

/** The λ that retrieval reports and applies for each phase is the agent's configured table entry. */
describe("λ per phase, through retrieval", () => {
  it("uses the configured λ of every phase (and the default without one), before and after a PATCH", async () => {
    const { api } = await agentFixture();
    const good = (await api("POST", "/experiences", { text: "Retry HTTP 429 responses after waiting for Retry-After" })).body.id;
    await api("POST", "/experiences", { text: "Retry HTTP 429 responses with exponential backoff and jitter" });
    await api("POST", "/experiences", { text: "Retry HTTP 429 responses only for idempotent requests" });
    for (let i = 0; i < 3; i++) await api("POST", "/rewards", { memoryIds: [good], outcome: "success" });

    const check = async (table: Record<string, number>) => {
      for (const phase of [...PhaseSchema.options, undefined]) {
        const expected = table[phase ?? "default"]!;
        const r = await api("POST", "/retrieve", { query: "retry HTTP 429 responses", ...(phase ? { phase } : {}) });
        expect(r.status).toBe(200);
        expect(r.body.lambda, String(phase)).toBe(expected);
        expect(r.body.items.length).toBeGreaterThan(1);
        for (const item of r.body.items) {
          expect(item.lambda).toBe(expected);
          expect(item.score).toBeCloseTo((1 - expected) * item.simZ + expected * item.qZ, 12);
        }
      }
    };

    await check(defaultAgentConfig().lambda);
    const custom = { observation: 0.05, reasoning: 0.15, planning: 0.95, action: 0.45, reflection: 0.85, default: 0.35 };
    expect((await api("PATCH", "/config", { lambda: custom })).status).toBe(200);
    await check(custom);
  });
});
