import { describe, expect, it } from "vitest";
import type { CallToolResult, Client } from "@modelcontextprotocol/client";
import { mcpClient } from "../mcp-client";
import { call, newAgent, newKey, newTenant } from "../helpers";
import { problemIn } from "../mcp-problem";

async function connect(key: string) {
  const client = await mcpClient(key);
  await client.listTools();
  return client;
}

const tool = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

describe("MCP reads are inert", () => {
  it("pull_experiences and get_prompt name only an open episode of the agent: unknown is a 404, ended a 409", async () => {
    const { apiKey } = await newTenant();
    const agentId = await newAgent(apiKey);
    const client = await connect(apiKey);
    await tool(client, "add_experience", { agentId, text: "Retry HTTP 429 responses with exponential backoff" });
    for (const name of ["pull_experiences", "get_prompt"]) {
      const r = await tool(client, name, { agentId, query: "retry 429", episodeId: `${agentId}:ep_unknown` });
      expect(r.isError).toBe(true);
      expect(problemIn(r)).toMatchObject({ status: 404, detail: "Episode 'ep_unknown' does not exist." });
    }
    const started = await tool(client, "start_episode", { agentId, task: "Call the rates API" });
    const episodeId = (started.structuredContent as { episodeId: string }).episodeId;
    await tool(client, "end_episode", { episodeId, result: "done", success: true });
    for (const name of ["pull_experiences", "get_prompt"]) {
      const r = await tool(client, name, { agentId, query: "retry 429", episodeId });
      expect(r.isError).toBe(true);
      expect(problemIn(r)).toMatchObject({ status: 409 });
    }
    await client.close();
  });

  it("a read key's pulls joined to a writer's open episode are not credited by its end", async () => {
    const { apiKey } = await newTenant();
    const agentId = await newAgent(apiKey);
    const writer = await connect(apiKey);
    const reader = await connect((await newKey(apiKey, "read")).apiKey);
    const lesson = (await tool(writer, "add_experience", { agentId, text: "Retry HTTP 429 responses with exponential backoff" }))
      .structuredContent as { id: string };
    const started = await tool(writer, "start_episode", { agentId, task: "Call the rates API" });
    const episodeId = (started.structuredContent as { episodeId: string }).episodeId;

    const pulled = await tool(reader, "pull_experiences", { agentId, query: "retry 429 backoff", episodeId });
    expect(pulled.isError, JSON.stringify(pulled.content)).toBeFalsy();
    expect((pulled.structuredContent as { items: { id: string }[] }).items.map((i) => i.id)).toEqual([lesson.id]);
    expect((await tool(reader, "get_prompt", { agentId, query: "retry 429", episodeId })).isError).toBeFalsy();

    const ended = await tool(writer, "end_episode", { episodeId, result: "The call went through", success: true });
    expect(ended.isError, JSON.stringify(ended.content)).toBeFalsy();
    expect((ended.structuredContent as { result: { rewarded: unknown[] } }).result.rewarded).toEqual([]);
    const e = await call("GET", `/v1/agents/${agentId}/experiences/${lesson.id}`, { key: apiKey });
    expect(e.body.q).toBe(0.5);

    // The same pull by the writer is credited.
    const next = (await tool(writer, "start_episode", { agentId, task: "Call the rates API again" })).structuredContent as {
      episodeId: string;
    };
    await tool(writer, "pull_experiences", { agentId, query: "retry 429 backoff", episodeId: next.episodeId });
    const credited = await tool(writer, "end_episode", { episodeId: next.episodeId, result: "ok", success: true });
    expect((credited.structuredContent as { result: { rewarded: { id: string }[] } }).result.rewarded.map((r) => r.id)).toEqual([
      lesson.id,
    ]);
    await writer.close();
    await reader.close();
  });
});
