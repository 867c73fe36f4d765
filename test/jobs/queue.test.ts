import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { newAgent, newTenant } from "../helpers";

describe("queue consumer", () => {
  it("acks valid messages and retries invalid ones so they reach the dead-letter queue", async () => {
    const t = await newTenant();
    const agentId = await newAgent(t.apiKey);
    const batch = createMessageBatch<unknown>("praxis-jobs", [
      { id: "good", timestamp: new Date(), attempts: 1, body: { type: "agent.sweep", tenantId: t.tenantId, agentId, at: Date.now() } },
      { id: "unknown-type", timestamp: new Date(), attempts: 1, body: { type: "nope" } },
      { id: "bad-shape", timestamp: new Date(), attempts: 2, body: { type: "agent.sweep", tenantId: 5 } },
      { id: "not-object", timestamp: new Date(), attempts: 1, body: "hello" },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual(["good"]);
    expect(result.retryMessages.map((m: { msgId: string }) => m.msgId).sort()).toEqual(["bad-shape", "not-object", "unknown-type"]);
    expect(result.ackAll).toBe(false);
  });
});
