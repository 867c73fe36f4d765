import { z } from "zod";
import type { McpServer } from "@modelcontextprotocol/server";
import { ExperienceCreateSchema, PromptBudgetSchema, RetrieveRequestSchema } from "../../core/memory-types";
import { AgentIdSchema } from "../../routes/schemas";
import { agentMemoryFor } from "../../services/agents";
import { callMemory } from "../../services/agent-memory";
import { guarded, toolResult, type ToolContext } from "../tool";
import { episodeIdFor, EpisodeHandleSchema } from "./episodes";

const PromptInput = z
  .object({
    agentId: AgentIdSchema,
    query: RetrieveRequestSchema.shape.query,
    budgetTokens: PromptBudgetSchema.default(1500),
    phase: RetrieveRequestSchema.shape.phase,
    episodeId: EpisodeHandleSchema.optional().describe("Link the block to an open episode, so its end rewards the lessons used"),
  })
  .strict();

const AddExperienceInput = ExperienceCreateSchema.pick({ text: true, tags: true }).extend({ agentId: AgentIdSchema });

export function registerMemoryTools(server: McpServer, c: ToolContext) {
  server.registerTool(
    "get_prompt",
    {
      description: "The block to put in the system prompt: the lesson library as `[G#]. …` lines (ranked for the query when it does not fit the budget), then similar past cases.",
      inputSchema: PromptInput,
      annotations: { readOnlyHint: true },
    },
    ({ agentId, query, budgetTokens, phase, episodeId }) =>
      guarded(c, async () => {
        const episode = episodeIdFor(agentId, episodeId);
        const { memory } = agentMemoryFor(c, agentId, "read");
        const block = await callMemory(() => memory.prompt({ query, budgetTokens, ...(phase ? { phase } : {}), ...(episode ? { episodeId: episode } : {}) }));
        return toolResult(block.prompt || "The library is empty so far.", block);
      }),
  );

  server.registerTool(
    "add_experience",
    { description: "Add a lesson to the agent's library (a new library version).", inputSchema: AddExperienceInput },
    ({ agentId, ...input }) =>
      guarded(c, async () => {
        const { key, memory } = agentMemoryFor(c, agentId, "write");
        const { value: r } = await callMemory(() => memory.createExperience(input, `key:${key.keyId}`, { keyId: key.keyId }));
        const e = r.experience;
        return toolResult(`Added ${e.id}${e.label ? ` as [${e.label}]` : ""} (library version ${r.version}).`, { ...e, libraryVersion: r.version });
      }),
  );
}
