import { z } from "zod";
import type { McpServer } from "@modelcontextprotocol/server";
import { RunCreateSchema, RunViewSchema } from "../../core/practice/run-types";
import { getPracticeRun, startPracticeRun } from "../../use-cases/practice-runs";
import { depsOf } from "../../doors/use-case";
import { unwrap } from "../../core/errors";
import { AgentIdArg, describedArgs, guarded, toolResult, type ToolContext } from "../tool";

const StartInput = describedArgs(RunCreateSchema, {
  datasetId: "The dataset to practise on: its id (`ds_…`) or its name",
  epochs: "Passes over the dataset's train split",
  batchSize: "Tasks per step; the library is updated once per step",
  groupSize: "Answers per task (2-16); lessons come from comparing them",
  verifier: "How answers are scored: exact, contains, regex, numeric, math, json, llm-judge, majority or webhook (default: the dataset's)",
  policy: 'Who answers: `{ kind: "llm" }` (the configured model) or `{ kind: "webhook", url }` (your agent)',
  maxOpsPerGroup: "Library changes proposed per group at most",
  budget: "`{ maxTokens?, maxCostUsd? }`: the run stops between stages when it is spent",
  promote: "gate (default with a holdout split), best, always or never: when the learned library replaces the agent's",
  seed: "Fixes task order and sampling, for a repeatable run",
  libraryId: "A shared library (`lib_…`) to practise on instead of the agent's own: the run starts from its lessons and promotes into it",
}).extend({ agentId: AgentIdArg });
const StartOutput = z.object({ runId: z.string().describe("Pass this to practice_status"), status: RunViewSchema.shape.status });
const StatusInput = z
  .object({ agentId: AgentIdArg, runId: z.string().min(1).max(64).describe("The runId start_practice returned") })
  .strict();

export function registerPracticeTools(server: McpServer, c: ToolContext) {
  server.registerTool(
    "start_practice",
    {
      description: "Start a Training-Free GRPO practice run of the agent on an uploaded dataset; follow it with practice_status.",
      inputSchema: StartInput,
      outputSchema: StartOutput,
    },
    ({ agentId, ...body }) =>
      guarded(c, async () => {
        const r = unwrap(await startPracticeRun(depsOf(c), c.get("principal"), { agentId, run: body }));
        return toolResult(`Practice run ${r.runId} is ${r.status}.`, { runId: r.runId, status: r.status });
      }),
  );

  server.registerTool(
    "practice_status",
    {
      description: "A practice run's status, progress, train reward per step, usage and promotion.",
      inputSchema: StatusInput,
      outputSchema: RunViewSchema,
      annotations: { readOnlyHint: true },
    },
    ({ agentId, runId }) =>
      guarded(c, async () => {
        const v = unwrap(await getPracticeRun(depsOf(c), c.get("principal"), { agentId, runId }));
        const p = v.progress;
        const text = `Run ${v.runId}: ${v.status}; epoch ${p.epoch}, step ${p.step}/${p.stepsPerEpoch}${p.stage ? ` (${p.stage})` : ""}, rollouts ${p.rollouts.done}/${p.rollouts.total}.`;
        return toolResult(text, v);
      }),
  );
}
