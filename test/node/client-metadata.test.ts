import { beforeAll, describe, expect, inject, it } from "vitest";
import { Praxis, PraxisError, unwrap } from "../../client/src/index";

const { url, adminKey } = inject("localWorker");
let praxis: Praxis;

beforeAll(async () => {
  const operator = new Praxis({ baseUrl: url, apiKey: adminKey });
  const apiKey = (await unwrap(operator.api.POST("/v1/tenants", { body: { name: `client-metadata-test-${Date.now().toString(36)}` } })))
    .apiKey;
  praxis = new Praxis({ baseUrl: url, apiKey, retry: { baseDelayMs: 0 } });
});

describe("TypeScript client: metadata and filters", () => {
  it("stores metadata, filters retrieve and prompt before ranking, and returns it on items", async () => {
    const agent = praxis.agent("metadata-bot");
    await agent.ensure();
    const close = await agent.addExperience({
      text: "Retry HTTP 429 responses with exponential backoff",
      metadata: { customer: "globex" },
    });
    const far = await agent.addExperience({
      text: "Retry HTTP responses slowly when a service is busy",
      metadata: { customer: "acme", tier: 2, vip: true },
    });
    expect(far.metadata).toEqual({ customer: "acme", tier: 2, vip: true });
    const query = "retry HTTP 429 responses with exponential backoff";
    expect((await agent.retrieve({ query, k1: 1, k2: 1 })).items.map((i) => i.id)).toEqual([close.id]);
    const r = await agent.retrieve({ query, k1: 1, k2: 1, filter: { metadata: { customer: "acme" } } });
    expect(r.items.map((i) => [i.id, i.metadata])).toEqual([[far.id, { customer: "acme", tier: 2, vip: true }]]);
    const block = await agent.prompt({ query, filter: { metadata: { vip: true } } });
    expect(block.experienceIds).toEqual([far.id]);
    expect(block.prompt).not.toContain("acme");
    const bad = await agent.retrieve({ query, filter: { createdAfter: -1 } }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(PraxisError);
    expect((bad as PraxisError).status).toBe(400);
  });
});
