import { describe, expect, it } from "vitest";
import { mcpTool } from "../mcp-client";
import { call, newAgent, newTenant } from "../helpers";
import { problemIn } from "../mcp-problem";

describe("MCP end_episode names its outcome", () => {
  it("`abandoned` moves no Q and stores no case; without `success` or `outcome` it is refused and the episode stays open", async () => {
    const { apiKey } = await newTenant();
    const agentId = await newAgent(apiKey);
    const tool = await mcpTool(apiKey);
    const lesson = (await tool("add_experience", { agentId, text: "Check the rate limit headers before retrying a batch upload" }))
      .structuredContent as { id: string };
    const ep = (await tool("start_episode", { agentId, task: "Upload the nightly batch" })).structuredContent as {
      episodeId: string;
      id: string;
    };
    await tool("pull_experiences", { agentId, query: "retry batch upload rate limit", episodeId: ep.episodeId });

    const refused = await tool("end_episode", { episodeId: ep.episodeId, result: "the model API answered 404" });
    expect(refused.isError).toBe(true);
    expect(problemIn(refused)).toMatchObject({ status: 400 });
    const open = await call("GET", `/v1/agents/${agentId}/episodes/${ep.id}`, { key: apiKey });
    expect(open.body.status).toBe("open");

    const ended = (
      await tool("end_episode", {
        episodeId: ep.episodeId,
        result: "the model API answered 404",
        outcome: "abandoned",
        citedIds: [lesson.id],
      })
    ).structuredContent as { outcome: string; result: { rewarded: unknown[]; caseId: string | null } };
    expect(ended).toMatchObject({ outcome: "abandoned", result: { rewarded: [], caseId: null } });
    const after = await call("GET", `/v1/agents/${agentId}/experiences/${lesson.id}`, { key: apiKey });
    expect(after.body.q).toBe(0.5);
    const cases = await call("GET", `/v1/agents/${agentId}/cases`, { key: apiKey });
    expect(cases.body.items).toEqual([]);
  });
});
