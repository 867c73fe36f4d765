import { Client, StreamableHTTPClientTransport, type CallToolResult } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { newAgent, newTenant } from "../helpers";
import { coldKey, freshIsolate, probedWorker, WARM_READS, type Trips } from "./probe";

/**
 * Round trips per hot-path request, counted at the bindings. Warm (key in this isolate or in KV,
 * agent known to its Durable Object): no D1 query and at most one Durable Object call; reads at the
 * edge none (the object is asked for its snapshot once per staleness bound, set long here). Cold
 * (the key in neither cache): one D1 query, the key's.
 */
async function fixture() {
  const t = await newTenant();
  const agentId = await newAgent(t.apiKey);
  const w = probedWorker({}, WARM_READS);
  const added = await w.call("POST", `/v1/agents/${agentId}/experiences`, t.apiKey, {
    text: "Retry flaky npm installs with a clean cache",
  });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  return { t, agentId, w, experienceId: added.body.id as string };
}

const warm = (trips: Trips) => ({ DB: trips.DB, AGENT_MEMORY: trips.AGENT_MEMORY });

describe("round trips on the hot paths", () => {
  it("retrieve, rewards and prompt: cold 1 D1 query, then 0 from KV and 0 from the isolate; reads 0 DO calls once the snapshot is held, rewards 1", async () => {
    const { t, agentId, w } = await fixture();
    const retrieve = () => w.call("POST", `/v1/agents/${agentId}/retrieve`, t.apiKey, { query: "npm install fails" });

    await coldKey(t.apiKey);
    const cold = await retrieve();
    expect(cold.status).toBe(200);
    // The key's lookup, the KV fill's check of D1 once its write landed (waitUntil) and the key's
    // revocation check, beside the one call that fetches the agent's snapshot.
    expect(warm(cold.trips)).toEqual({ DB: 3, AGENT_MEMORY: 1 });
    expect(cold.body.servedFrom).toBe("edge");

    freshIsolate();
    const fromKv = await retrieve();
    expect(fromKv.status).toBe(200);
    expect(fromKv.trips).toMatchObject({ DB: 0, AGENT_MEMORY: 0, PRAXIS_KEYS: 1 });

    const hot = await retrieve();
    expect(hot.trips).toMatchObject({ DB: 0, AGENT_MEMORY: 0, PRAXIS_KEYS: 0 });
    const retrievalId = hot.body.retrievalId as string;

    const reward = await w.call("POST", `/v1/agents/${agentId}/rewards`, t.apiKey, { retrievalId, outcome: "success" });
    expect(reward.status, JSON.stringify(reward.body)).toBe(200);
    expect(reward.body.updated.length).toBeGreaterThan(0);
    expect(warm(reward.trips)).toEqual({ DB: 0, AGENT_MEMORY: 1 });

    const prompt = await w.call("GET", `/v1/agents/${agentId}/prompt?query=npm`, t.apiKey);
    expect(prompt.status).toBe(200);
    expect(prompt.body.prompt).toContain("npm");
    expect(warm(prompt.trips)).toEqual({ DB: 0, AGENT_MEMORY: 0 });
    // Read through the object, as before reads moved to the edge: one call.
    const strong = await w.call("GET", `/v1/agents/${agentId}/prompt?query=npm&consistency=strong`, t.apiKey);
    expect(warm(strong.trips)).toEqual({ DB: 0, AGENT_MEMORY: 1 });
  });

  it("episodes: start, attempts and end each make 0 D1 queries and 1 DO call when warm", async () => {
    const { t, agentId, w } = await fixture();
    const start = await w.call("POST", `/v1/agents/${agentId}/episodes`, t.apiKey, { task: "Install the dependencies" });
    expect(start.status, JSON.stringify(start.body)).toBe(201);
    expect(warm(start.trips)).toEqual({ DB: 0, AGENT_MEMORY: 1 });
    const ep = start.body.id as string;

    const attempt = await w.call("POST", `/v1/agents/${agentId}/episodes/${ep}/attempts`, t.apiKey, {
      description: "ran npm ci",
      ok: true,
    });
    expect(attempt.status, JSON.stringify(attempt.body)).toBe(201);
    expect(warm(attempt.trips)).toEqual({ DB: 0, AGENT_MEMORY: 1 });

    const end = await w.call("POST", `/v1/agents/${agentId}/episodes/${ep}/end`, t.apiKey, { outcome: "success", answer: "installed" });
    expect(end.status, JSON.stringify(end.body)).toBe(200);
    expect(warm(end.trips)).toEqual({ DB: 0, AGENT_MEMORY: 1 });
  });

  it("MCP pull_experiences makes 0 D1 queries and 0 DO calls when warm", async () => {
    const { t, agentId, w, experienceId } = await fixture();
    const calls: { method: string; trips: Trips }[] = [];
    const transport = new StreamableHTTPClientTransport(new URL("http://praxis.test/mcp"), {
      fetch: async (url, init) => {
        const req = new Request(url, init);
        const method = req.method === "POST" ? String(((await req.clone().json()) as { method?: string }).method) : req.method;
        const { res, trips } = await w.fetch(req);
        calls.push({ method, trips });
        return res;
      },
      requestInit: { headers: { authorization: `Bearer ${t.apiKey}` } },
    });
    const client = new Client({ name: "round-trips", version: "1.0.0" });
    await client.connect(transport);
    // The first read fetches the agent's snapshot (and checks the key); the one measured is warm.
    await client.callTool({ name: "pull_experiences", arguments: { agentId, query: "npm install fails" } });
    calls.length = 0;
    const r = (await client.callTool({ name: "pull_experiences", arguments: { agentId, query: "npm install fails" } })) as CallToolResult;
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    expect((r.structuredContent as { items: { id: string }[] }).items.map((i) => i.id)).toEqual([experienceId]);
    const toolCalls = calls.filter((x) => x.method === "tools/call");
    expect(toolCalls).toHaveLength(1);
    expect(warm(toolCalls[0]!.trips)).toEqual({ DB: 0, AGENT_MEMORY: 0 });
    await client.close();
  });

  it("an unknown agent is a 404 from its Durable Object, in the same single call, with no D1 query", async () => {
    const { t, agentId, w } = await fixture();
    // The key's revocation is checked at its first read at the edge, here on an agent that exists.
    expect((await w.call("POST", `/v1/agents/${agentId}/retrieve`, t.apiKey, { query: "anything" })).status).toBe(200);
    const r = await w.call("POST", `/v1/agents/no-such-agent/retrieve`, t.apiKey, { query: "anything" });
    expect(r.status).toBe(404);
    expect(r.headers.get("content-type")).toContain("application/problem+json");
    expect(warm(r.trips)).toEqual({ DB: 0, AGENT_MEMORY: 1 });
  });
});
