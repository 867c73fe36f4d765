import { z } from "zod";
import type { McpServer } from "@modelcontextprotocol/server";
import { AgentConfigPatchSchema, LambdaTableSchema, type AgentConfig } from "../../core/agent-config";
import { AnalyticsSchema, AnalyticsTopSchema, QHistoryEntrySchema, RewardRequestSchema, RewardResultSchema } from "../../core/memory-types";
import { depsOf } from "../../doors/use-case";
import { getAgentConfig, updateAgentConfig } from "../../use-cases/agent-config";
import { rewardMemory, utilityAnalytics } from "../../use-cases/rewards";
import { invalid, unwrap } from "../../core/errors";
import { AgentIdArg, guarded, toolResult, type ToolContext } from "../tool";

/** The analytics route's default convergence window and histogram buckets: agents choose only how many memories to rank. */
const ANALYTICS_WINDOW = 100;
const ANALYTICS_BUCKETS = 10;

const AnalyticsInput = z
  .object({
    agentId: AgentIdArg,
    topN: AnalyticsTopSchema.default(10).describe("How many memories to rank at the top and at the bottom by Q"),
    includeHistory: z.boolean().default(false).describe("Add each ranked memory's recent Q updates"),
  })
  .strict();

const PhaseLambdasSchema = AgentConfigPatchSchema.shape.lambda.unwrap().omit({ default: true });

const UtilityConfigInput = z
  .object({
    agentId: AgentIdArg,
    action: z.enum(["get", "set"]).describe("get reads the settings; set changes the ones given"),
    lambda: LambdaTableSchema.shape.default
      .unwrap()
      .optional()
      .describe("λ when no phase is given: how much learned utility counts against similarity"),
    phaseLambdas: PhaseLambdasSchema.optional().describe("λ per phase"),
  })
  .strict();

const RewardInput = z
  .object({
    agentId: AgentIdArg,
    memoryId: RewardRequestSchema.shape.memoryIds.unwrap().element.describe("The id of the lesson or case (`exp_…`, `case_…`)"),
    reward: RewardRequestSchema.shape.reward.unwrap().describe("From -1 (it misled) to 1 (it helped)"),
    reason: z.string().trim().min(1).max(500).optional().describe("Why; kept in the audit log"),
  })
  .strict();

const AnalyticsOutput = AnalyticsSchema.extend({
  history: z
    .record(z.string(), z.array(QHistoryEntrySchema))
    .optional()
    .describe("With includeHistory: each ranked memory's recent Q updates"),
});
const UtilityConfigOutput = z.object({
  lambda: z.number(),
  phaseLambdas: z.record(z.string(), z.number()),
  alpha: z.number(),
  defaultQ: z.number(),
  rewardMapping: z.record(z.string(), z.number()),
});

const utilityView = (cfg: AgentConfig) => {
  const { default: lambda, ...phaseLambdas } = cfg.lambda;
  return { lambda, phaseLambdas, alpha: cfg.alpha, defaultQ: cfg.defaultQ, rewardMapping: cfg.rewardMapping };
};

export function registerUtilityTools(server: McpServer, c: ToolContext) {
  const deps = depsOf(c);
  const caller = c.get("principal");

  server.registerTool(
    "memory_qvalue_analytics",
    {
      description:
        "Q-value distribution, the top and bottom memories by Q, convergence and success rates; optionally each ranked memory's Q history.",
      inputSchema: AnalyticsInput,
      outputSchema: AnalyticsOutput,
      annotations: { readOnlyHint: true },
    },
    ({ agentId, topN, includeHistory }) =>
      guarded(c, async () => {
        const query = { agentId, top: topN, window: ANALYTICS_WINDOW, buckets: ANALYTICS_BUCKETS, history: includeHistory };
        const { analytics: a, history } = unwrap(await utilityAnalytics(deps, caller, query));
        const data: object = history ? { ...a, history } : a;
        const q = a.experiences.q;
        const best = a.top[0];
        const text = `${q.count} active experiences, mean Q ${q.mean.toFixed(3)} (sd ${q.std.toFixed(3)}); mean |ΔQ| ${a.convergence.meanAbsDeltaQ.toFixed(4)} over the last ${a.convergence.updates} updates${best ? `; best: ${best.id} Q ${best.q.toFixed(3)}` : ""}.`;
        return toolResult(text, data);
      }),
  );

  server.registerTool(
    "memory_utility_config",
    {
      description:
        "Get or set how retrieval weighs learned utility against similarity: λ, and λ per phase (observation, reasoning, planning, action, reflection).",
      inputSchema: UtilityConfigInput,
      outputSchema: UtilityConfigOutput,
    },
    ({ agentId, action, lambda, phaseLambdas }) =>
      guarded(c, async () => {
        if (action === "get") {
          if (lambda !== undefined || phaseLambdas !== undefined) {
            throw invalid("lambda and phaseLambdas are set with action 'set'.", [
              { path: "action", message: "Use 'set' to change values" },
            ]);
          }
          const cfg = utilityView(unwrap(await getAgentConfig(deps, caller, { agentId })));
          return toolResult(`λ ${cfg.lambda}; per phase ${JSON.stringify(cfg.phaseLambdas)}.`, cfg);
        }
        if (lambda === undefined && (phaseLambdas === undefined || Object.keys(phaseLambdas).length === 0)) {
          throw invalid("Give lambda or phaseLambdas to set.", [{ path: "lambda", message: "Nothing to change" }]);
        }
        const patch = { lambda: { ...phaseLambdas, ...(lambda !== undefined ? { default: lambda } : {}) } };
        const cfg = utilityView(unwrap(await updateAgentConfig(deps, caller, { agentId, patch })));
        return toolResult(`Updated: λ ${cfg.lambda}; per phase ${JSON.stringify(cfg.phaseLambdas)}.`, cfg);
      }),
  );

  server.registerTool(
    "memory_inject_reward",
    {
      description: "Reward (or penalise) one memory directly: Q ← Q + α(reward − Q). For feedback that does not wait for an episode's end.",
      inputSchema: RewardInput,
      outputSchema: RewardResultSchema,
    },
    ({ agentId, memoryId, reward, reason }) =>
      guarded(c, async () => {
        const r = unwrap(await rewardMemory(deps, caller, { agentId, memoryId, reward, reason }));
        const u = r.updated[0];
        const text = u ? `Q of ${u.id}: ${u.qBefore.toFixed(3)} → ${u.q.toFixed(3)}.` : `No memory '${memoryId}' was updated.`;
        return toolResult(text, r);
      }),
  );
}
