import { createExecutionContext, SELF, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { Client, StreamableHTTPClientTransport, type CallToolResult, type FetchLike } from "@modelcontextprotocol/client";
import worker from "../../src/index";
import { call, newAgent, newKey, newTenant } from "../helpers";
import { practiceEnv } from "../practice/harness";
import { problemIn } from "../mcp-problem";

const MCP_URL = new URL("http://praxis.test/mcp");
const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";

type Era = "modern" | "legacy";

/** The official client, its transport pointed at the Worker; `legacy` is the plain 2025 `initialize` handshake. */
async function connect(key: string, era: Era, fetch: FetchLike = (url, init) => SELF.fetch(url, init)) {
  const transport = new StreamableHTTPClientTransport(MCP_URL, {
    fetch,
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  const client = new Client(
    { name: "praxis-test", version: "1.0.0" },
    era === "modern" ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
  );
  await client.connect(transport);
  // Listing the tools makes the client check every structured result against its outputSchema.
  await client.listTools();
  return client;
}

async function tool(client: Client, name: string, args: Record<string, unknown>) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

async function ok<T = any>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const r = await tool(client, name, args);
  expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  expect(r.content[0]).toMatchObject({ type: "text" });
  return r.structuredContent as T;
}

const TOOLS = [
  "add_experience",
  "create_agent",
  "end_episode",
  "get_prompt",
  "list_agents",
  "list_libraries",
  "log_attempt",
  "memory_inject_reward",
  "memory_qvalue_analytics",
  "memory_utility_config",
  "practice_status",
  "pull_experiences",
  "share_experience",
  "start_episode",
  "start_practice",
];

describe.each<Era>(["modern", "legacy"])("MCP at /mcp (%s client)", (era) => {
  it("lists the tools with input schemas from the REST shapes", async () => {
    const { apiKey } = await newTenant();
    const client = await connect(apiKey, era);
    expect(client.getNegotiatedProtocolVersion()).toBe(era === "modern" ? MODERN : LEGACY);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.log_attempt!.inputSchema.required?.sort()).toEqual(["description", "episodeId", "success"]);
    expect(byName.end_episode!.inputSchema.properties).toHaveProperty("notes");
    expect(byName.pull_experiences!.inputSchema.properties!.limit).toMatchObject({ default: 5, maximum: 100 });
    expect(byName.start_episode!.inputSchema.properties!.task).toMatchObject({ maxLength: 4000 });
    await client.close();
  });

  it("tells the model the workflow, names every argument in camelCase with a description, and declares output schemas", async () => {
    const { apiKey } = await newTenant();
    const client = await connect(apiKey, era);
    const instructions = client.getInstructions() ?? "";
    const order = ["start_episode", "get_prompt", "log_attempt", "end_episode"].map((t) => instructions.indexOf(t));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(instructions).toContain("citedIds");
    const { tools } = await client.listTools();
    for (const t of tools) {
      expect(t.description?.length ?? 0, t.name).toBeGreaterThan(20);
      for (const [name, prop] of Object.entries<any>(t.inputSchema.properties ?? {})) {
        expect(name, `${t.name}.${name}`).toMatch(/^[a-z][a-zA-Z0-9]*$/);
        expect(prop.description?.length ?? 0, `${t.name}.${name} has no description`).toBeGreaterThan(5);
      }
      expect(t.outputSchema, `${t.name} returns structured content`).toMatchObject({ type: "object" });
    }
    await client.close();
  });

  it("lists and creates agents; creating again is a no-op", async () => {
    const { apiKey } = await newTenant();
    const client = await connect(apiKey, era);
    const empty = await tool(client, "list_agents", {});
    expect(empty.structuredContent).toEqual({ items: [], nextCursor: null });
    expect((empty.content[0] as { text: string }).text).toContain("create_agent");
    const made = await ok(client, "create_agent", { agentId: "triage-bot", displayName: "Triage bot" });
    expect(made).toMatchObject({ agentId: "triage-bot", displayName: "Triage bot", created: true });
    const again = await tool(client, "create_agent", { agentId: "triage-bot" });
    expect(again.structuredContent).toMatchObject({ agentId: "triage-bot", displayName: "Triage bot", created: false });
    expect((again.content[0] as { text: string }).text).toBe("Agent triage-bot already exists.");
    await ok(client, "create_agent", { agentId: "billing-bot" });
    const listed = await tool(client, "list_agents", { limit: 1 });
    expect((listed.structuredContent as any).items.map((a: { agentId: string }) => a.agentId)).toEqual(["billing-bot"]);
    expect((listed.content[0] as { text: string }).text).toBe("1 agent: billing-bot; more with the nextCursor.");
    const rest = await call("GET", "/v1/agents/triage-bot", { key: apiKey });
    expect(rest.body).toMatchObject({ agentId: "triage-bot", displayName: "Triage bot" });
    // The new agent works with the other tools at once.
    await ok(client, "start_episode", { agentId: "triage-bot", task: "Sort the morning's tickets" });
    const reader = await connect((await newKey(apiKey, "read")).apiKey, era);
    const refused = await tool(reader, "create_agent", { agentId: "sneaky-bot" });
    expect(refused.isError).toBe(true);
    expect((await call("GET", "/v1/agents/sneaky-bot", { key: apiKey })).status).toBe(404);
    await reader.close();
    await client.close();
  });

  it("learns from an episode and pulls the lesson back; an injected reward moves Q", async () => {
    const { apiKey } = await newTenant();
    const agentId = await newAgent(apiKey);
    const client = await connect(apiKey, era);

    const lesson = await ok(client, "add_experience", {
      agentId,
      text: "Retry flaky npm installs with a clean cache before debugging",
      tags: ["npm"],
    });
    expect(lesson).toMatchObject({ q: 0.5, libraryVersion: 1 });

    const ep = await ok(client, "start_episode", { agentId, task: "Install the npm dependencies of the web app" });
    expect(ep.episodeId).toBe(`${agentId}:${ep.id}`);
    expect(ep.status).toBe("open");

    const pulled = await ok(client, "pull_experiences", { agentId, query: "npm install fails flaky cache", episodeId: ep.episodeId });
    expect(pulled.items.map((i: { id: string }) => i.id)).toEqual([lesson.id]);

    const failed = await ok(client, "log_attempt", {
      episodeId: ep.episodeId,
      description: "ran npm install",
      error: "npm ERR! code EINTEGRITY",
      success: false,
    });
    expect(failed).toMatchObject({ n: 1, ok: false });
    expect(failed.error).toContain("EINTEGRITY");
    await ok(client, "log_attempt", { episodeId: ep.episodeId, description: "cleaned the cache and retried", success: true });

    const endArgs = { episodeId: ep.episodeId, result: "installed", success: true, notes: "the cache was corrupt", citedIds: [lesson.id] };
    const endCall = await tool(client, "end_episode", endArgs);
    const ended = endCall.structuredContent as any;
    expect(ended).toMatchObject({ status: "ended", outcome: "success", answer: "installed\n\nNotes: the cache was corrupt" });
    expect(ended.result.rewarded).toEqual([{ id: lesson.id, q: expect.closeTo(0.55, 6) }]);
    expect(ended.result.caseId).toMatch(/./);
    expect(ended.result.extraction).toBe("queued");
    expect((endCall.content[0] as { text: string }).text).toBe(
      "Episode ended (success): reward 1, 1 memory rewarded; a lesson will be extracted from its failed and successful attempts.",
    );
    // Ending again changes nothing and says so, rather than announcing the extraction twice.
    const again = await tool(client, "end_episode", { ...endArgs, success: false });
    expect((again.content[0] as { text: string }).text).toBe("Episode had already ended (success); nothing changed.");
    expect(again.structuredContent).toEqual(ended);

    const rest = await call("GET", `/v1/agents/${agentId}/episodes/${ep.id}`, { key: apiKey });
    expect(rest.body.attempts).toHaveLength(2);

    const injected = await ok(client, "memory_inject_reward", { agentId, memoryId: lesson.id, reward: -1, reason: "misled the agent" });
    expect(injected.updated).toEqual([
      expect.objectContaining({ id: lesson.id, qBefore: expect.closeTo(0.55, 6), q: expect.closeTo(0.395, 6) }),
    ]);

    const analytics = await ok(client, "memory_qvalue_analytics", { agentId, topN: 3, includeHistory: true });
    expect(analytics.top[0]).toMatchObject({ id: lesson.id, q: expect.closeTo(0.395, 6) });
    expect(analytics.history[lesson.id].map((h: { q: number }) => h.q)).toEqual([expect.closeTo(0.55, 6), expect.closeTo(0.395, 6)]);
    const viaRest = await call("GET", `/v1/agents/${agentId}/experiences/${lesson.id}`, { key: apiKey });
    expect(viaRest.body.q).toBeCloseTo(0.395, 6);

    const prompt = await ok(client, "get_prompt", { agentId, query: "npm install", budgetTokens: 500 });
    expect(prompt.prompt).toContain("Retry flaky npm installs");
    await client.close();
  });

  it("adding a lesson near-identical to an active one names it, as REST does", async () => {
    const { apiKey } = await newTenant();
    const agentId = await newAgent(apiKey);
    const client = await connect(apiKey, era);
    const text = "When an API answers 429, wait for Retry-After, then retry with exponential backoff";
    const first = await ok(client, "add_experience", { agentId, text });
    expect(first.similar).toEqual([]);
    const again = await ok(client, "add_experience", { agentId, text: `${text}.` });
    expect(again.similar).toEqual([{ id: first.id, text, sim: expect.any(Number) }]);
    const rest = await call("POST", `/v1/agents/${agentId}/experiences`, { key: apiKey, body: { text: `${text}!` } });
    expect(rest.body.similar.map((s: { id: string }) => s.id).sort()).toEqual([first.id, again.id].sort());
    await client.close();
  });

  it("gets and sets λ through the agent config", async () => {
    const { apiKey } = await newTenant();
    const agentId = await newAgent(apiKey);
    const client = await connect(apiKey, era);
    expect(await ok(client, "memory_utility_config", { agentId, action: "get" })).toMatchObject({
      lambda: 0.5,
      phaseLambdas: { planning: 0.7 },
    });
    const set = await ok(client, "memory_utility_config", { agentId, action: "set", lambda: 0.6, phaseLambdas: { planning: 0.8 } });
    expect(set).toMatchObject({ lambda: 0.6, phaseLambdas: { planning: 0.8, observation: 0.2 } });
    const cfg = await call("GET", `/v1/agents/${agentId}/config`, { key: apiKey });
    expect(cfg.body.lambda).toMatchObject({ default: 0.6, planning: 0.8 });
    const nothing = await tool(client, "memory_utility_config", { agentId, action: "set" });
    expect(nothing.isError).toBe(true);
    expect(problemIn(nothing)).toMatchObject({ status: 400, detail: "Give lambda or phaseLambdas to set." });
    await client.close();
  });

  it("answers domain errors as tool errors carrying the problem detail", async () => {
    const { apiKey } = await newTenant();
    const agentId = await newAgent(apiKey);
    const reader = await newKey(apiKey, "read");
    const client = await connect(apiKey, era);

    const unknown = await tool(client, "start_episode", { agentId: "no-such-agent", task: "anything" });
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0]).toEqual({
      type: "text",
      text: expect.stringContaining("Resource not found: Agent 'no-such-agent' does not exist."),
    });
    expect(problemIn(unknown)).toMatchObject({ type: "https://praxis.dev/problems/not-found", status: 404 });

    const badHandle = await tool(client, "log_attempt", { episodeId: "not-a-handle", description: "x", success: true });
    expect(badHandle.isError).toBe(true);
    expect(problemIn(badHandle)).toMatchObject({ status: 400, errors: [{ path: "episodeId" }] });

    const invalid = await tool(client, "pull_experiences", { agentId, query: "" });
    expect(invalid.isError).toBe(true);
    expect(invalid.content[0]).toMatchObject({ text: expect.stringContaining("query: query must not be empty") });

    const noRun = await tool(client, "practice_status", { agentId, runId: "run_missing" });
    expect(problemIn(noRun)).toMatchObject({ status: 404, detail: "Practice run 'run_missing' does not exist." });

    const noDataset = await tool(client, "start_practice", { agentId, datasetId: "ds_missing", policy: { kind: "llm" } });
    expect(noDataset.isError).toBe(true);
    expect(problemIn(noDataset)).toMatchObject({
      status: 422,
      detail: "No dataset with id or name 'ds_missing'.",
      errors: [{ path: "datasetId" }],
    });

    const other = await newAgent(apiKey);
    const narrow = await connect((await newKey(apiKey, "write", [agentId])).apiKey, era);
    const elsewhere = await tool(narrow, "memory_qvalue_analytics", { agentId: other });
    expect(elsewhere.isError).toBe(true);
    expect(problemIn(elsewhere)).toMatchObject({ status: 403, detail: `This key is not allowed to use agent '${other}'.` });
    await narrow.close();

    const ep = await ok(client, "start_episode", { agentId, task: "a task of the first agent" });
    const crossed = await tool(client, "get_prompt", { agentId: other, query: "anything", budgetTokens: 200, episodeId: ep.episodeId });
    expect(problemIn(crossed)).toMatchObject({
      status: 400,
      detail: `Episode '${ep.episodeId}' belongs to agent '${agentId}', not '${other}'.`,
    });

    const readOnly = await connect(reader.apiKey, era);
    const refused = await tool(readOnly, "add_experience", { agentId, text: "a lesson a read key may not add" });
    expect(refused.isError).toBe(true);
    expect(problemIn(refused)).toMatchObject({
      type: "https://praxis.dev/problems/forbidden",
      detail: "This key has scope 'read'; 'write' is required.",
    });
    expect(await ok(readOnly, "pull_experiences", { agentId, query: "anything" })).toMatchObject({ items: [] });
    const listed = await call("GET", `/v1/agents/${agentId}/experiences`, { key: apiKey });
    expect(listed.body.items).toEqual([]);
    await client.close();
    await readOnly.close();
  });
});

describe("MCP practice tools", () => {
  it("starts a practice run on a dataset and reports its status, as REST does", async () => {
    const { apiKey } = await newTenant();
    const agentId = await newAgent(apiKey);
    const ds = await call("POST", "/v1/datasets", {
      key: apiKey,
      body: {
        name: "sums",
        verifier: { kind: "exact" },
        tasks: [1, 2, 3, 4].map((n) => ({ id: `t${n}`, task: `${n}+${n}`, groundTruth: String(2 * n), split: "train" })),
      },
    });
    expect(ds.status, JSON.stringify(ds.body)).toBe(201);
    // The Worker with an LLM configured (the module env has none); nothing here calls it.
    const withLlm: FetchLike = async (url, init) => {
      const ctx = createExecutionContext();
      const res = await worker.fetch(new Request(url, init), practiceEnv, ctx);
      await waitOnExecutionContext(ctx);
      return res;
    };
    const client = await connect(apiKey, "modern", withLlm);
    const started = await ok(client, "start_practice", { agentId, datasetId: ds.body.datasetId, policy: { kind: "llm" }, epochs: 1 });
    expect(started.runId).toMatch(/^run_/);
    const status = await ok(client, "practice_status", { agentId, runId: started.runId });
    expect(status).toMatchObject({ runId: started.runId, agentId, datasetId: ds.body.datasetId, config: { epochs: 1, groupSize: 5 } });
    const rest = await call("GET", `/v1/agents/${agentId}/practice-runs/${started.runId}`, { key: apiKey });
    expect(rest.body).toMatchObject({ runId: started.runId, config: status.config });
    await client.close();
  });
});

describe("MCP authentication and older protocol revisions", () => {
  it("refuses a missing or unknown key before any MCP exchange", async () => {
    await expect(connect("pxk_not_a_real_key_000000000000000000000000", "legacy")).rejects.toThrow();
    await expect(connect("pxk_not_a_real_key_000000000000000000000000", "modern")).rejects.toThrow();
    const res = await SELF.fetch(MCP_URL, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    expect(res.headers.get("www-authenticate")).toContain("Bearer");
  });

  it("serves a raw 2025-03-26 client statelessly: initialize, then tools/call without a session", async () => {
    const { apiKey } = await newTenant();
    const agentId = await newAgent(apiKey);
    const post = async (body: unknown, version?: string) => {
      const res = await SELF.fetch(MCP_URL, {
        method: "POST",
        headers: {
          authorization: `Bearer ${apiKey}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(version ? { "mcp-protocol-version": version } : {}),
        },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      const data = text.startsWith("{")
        ? text
        : text
            .split("\n")
            .find((l) => l.startsWith("data: "))!
            .slice(6);
      return { status: res.status, session: res.headers.get("mcp-session-id"), msg: JSON.parse(data) };
    };
    const init = await post({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "old-client", version: "0.1" } },
    });
    expect(init.status).toBe(200);
    expect(init.session).toBeNull();
    expect(init.msg.result.protocolVersion).toBe("2025-03-26");

    const started = await post(
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "start_episode", arguments: { agentId, task: "an old client's task" } },
      },
      "2025-03-26",
    );
    expect(started.msg.result.isError).toBeFalsy();
    expect(started.msg.result.structuredContent.episodeId).toMatch(new RegExp(`^${agentId}:ep_`));

    const pinned = await post({ jsonrpc: "2.0", id: 3, method: "tools/list" }, "2025-06-18");
    expect(pinned.msg.result.tools).toHaveLength(TOOLS.length);
  });
});
