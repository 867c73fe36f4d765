import { beforeAll, describe, expect, inject, it } from "vitest";
import { Praxis, unwrap } from "../../client/src/index";

const { url, adminKey } = inject("localWorker");
let apiKey = "";

/** Every request the client sends, with the header a read asks for its version by. */
function recording() {
  const asked: { path: string; minVersion: string | null }[] = [];
  const fetcher = async (request: Request) => {
    asked.push({ path: `${request.method} ${new URL(request.url).pathname}`, minVersion: request.headers.get("x-praxis-min-version") });
    return fetch(request);
  };
  return { asked, fetcher };
}

beforeAll(async () => {
  const operator = new Praxis({ baseUrl: url, apiKey: adminKey });
  apiKey = (await unwrap(operator.api.POST("/v1/tenants", { body: { name: "client-ryw-test" } }))).apiKey;
});

const TOPICS = ["refund", "invoice", "chargeback", "shipping", "coupon", "warranty", "password", "invoice PDF", "VAT", "subscription"];

describe("the TypeScript client reads its own writes", () => {
  it("20 of 20 add-then-retrieve pairs and 20 of 20 add-then-prompt pairs see the new lesson, with no extra argument", async () => {
    const { asked, fetcher } = recording();
    const agent = new Praxis({ baseUrl: url, apiKey, fetch: fetcher }).agent("ryw-bot");
    await agent.ensure();
    let retrieved = 0;
    let prompted = 0;
    for (let i = 0; i < 20; i++) {
      const topic = `${TOPICS[i % TOPICS.length]} case ${i}`;
      const added = await agent.addExperience(`For a ${topic} ticket, quote ticket code RYW${i} in the reply`);
      const r = await agent.retrieve({ query: `a ${topic} ticket`, k2: 20 });
      if (r.items.some((item) => item.id === added.id)) retrieved++;
      expect(r.libraryVersion).toBeGreaterThanOrEqual(added.libraryVersion);
      const block = await agent.prompt({ query: `a ${topic} ticket`, budgetTokens: 4000 });
      if (block.prompt.includes(`RYW${i} `)) prompted++;
      expect(asked.at(-1)).toEqual({ path: "GET /v1/agents/ryw-bot/prompt", minVersion: String(added.libraryVersion) });
      expect(asked.at(-2)).toEqual({ path: "POST /v1/agents/ryw-bot/retrieve", minVersion: String(added.libraryVersion) });
    }
    expect({ retrieved, prompted }).toEqual({ retrieved: 20, prompted: 20 });
    expect(agent.praxis.versions.get("ryw-bot")).toBe((await agent.retrieve({ query: "refund" })).libraryVersion);
  }, 120_000);

  it("versions are kept per agent and per client; readYourWrites: false sends none; deleting the agent forgets its version", async () => {
    const { asked, fetcher } = recording();
    const praxis = new Praxis({ baseUrl: url, apiKey, fetch: fetcher });
    const a = praxis.agent("ryw-a");
    const b = praxis.agent("ryw-b");
    await a.ensure();
    await b.ensure();
    const added = await a.addExperience("Quote the order number in every refund reply");
    await b.retrieve({ query: "refund" });
    expect(asked.at(-1)).toEqual({ path: "POST /v1/agents/ryw-b/retrieve", minVersion: null });
    await a.retrieve({ query: "refund", minVersion: 0 });
    expect(asked.at(-1)?.minVersion).toBe(String(added.libraryVersion));

    const other = recording();
    await new Praxis({ baseUrl: url, apiKey, fetch: other.fetcher }).agent("ryw-a").retrieve({ query: "refund" });
    const optedOut = new Praxis({ baseUrl: url, apiKey, fetch: other.fetcher, readYourWrites: false }).agent("ryw-a");
    await optedOut.addExperience("Never promise a refund date");
    await optedOut.prompt({ query: "refund" });
    expect(other.asked.map((r) => r.minVersion)).toEqual([null, null, null]);
    expect(optedOut.praxis.versions.get("ryw-a")).toBeUndefined();

    await unwrap(praxis.api.DELETE("/v1/agents/{agentId}", { params: { path: { agentId: "ryw-a" } } }));
    expect(praxis.versions.get("ryw-a")).toBeUndefined();
    await a.ensure();
    expect((await a.retrieve({ query: "refund" })).items).toEqual([]);
  });
});
