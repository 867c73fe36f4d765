import { z } from "zod";
import type { McpServer } from "@modelcontextprotocol/server";
import { RunCreateSchema } from "../../core/practice/run-types";
import { AgentIdSchema } from "../../core/api-key";
import { agentFor } from "../../services/agents";
import { runView, startRun } from "../../services/practice";
import { guarded, toolResult, type ToolContext } from "../tool";

const StartInput = RunCreateSchema.extend({ agentId: AgentIdSchema });
const StatusInput = z.object({ agentId: AgentIdSchema, runId: z.string().min(1).max(64) }).strict();

export function registerPracticeTools(server: McpServer, c: ToolContext) {
  server.registerTool(
    "start_practice",
    {
      description: "Start a Training-Free GRPO practice run of the agent on an uploaded dataset; follow it with practice_status.",
      inputSchema: StartInput,
    },
    ({ agentId, ...body }) =>
      guarded(c, async () => {
        const { key } = await agentFor(c, agentId, "write");
        const r = await startRun(c, { tenantId: key.tenantId, agentId }, body);
        return toolResult(`Practice run ${r.runId} is ${r.status}.`, { runId: r.runId, status: r.status });
      }),
  );

  server.registerTool(
    "practice_status",
    {
      description: "A practice run's status, progress, train reward per step, usage and promotion.",
      inputSchema: StatusInput,
      annotations: { readOnlyHint: true },
    },
    ({ agentId, runId }) =>
      guarded(c, async () => {
        const { key } = await agentFor(c, agentId, "read");
        const v = await runView(c.env, { tenantId: key.tenantId, agentId }, runId);
        const p = v.progress;
        const text = `Run ${v.runId}: ${v.status}; epoch ${p.epoch}, step ${p.step}/${p.stepsPerEpoch}${p.stage ? ` (${p.stage})` : ""}, rollouts ${p.rollouts.done}/${p.rollouts.total}.`;
        return toolResult(text, v);
      }),
  );
}
