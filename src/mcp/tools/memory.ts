import { z } from "zod";
import type { McpServer } from "@modelcontextprotocol/server";
import {
  ExperienceCreateSchema,
  ExperienceSchema,
  MemoryFilterSchema,
  PromptBudgetSchema,
  SimilarLessonsSchema,
} from "../../core/memory-types";
import { ConsistencySchema, MinVersionSchema, PromptBlockSchema, RetrieveRequestSchema } from "../../core/retrieval-types";
import { buildPrompt } from "../../use-cases/retrieval";
import { addLesson } from "../../use-cases/lessons";
import { unwrap } from "../../core/errors";
import { depsOf } from "../../doors/use-case";
import { AgentIdArg, describedArgs, guarded, toolResult, type ToolContext } from "../tool";
import { episodeIdFor, EpisodeHandleSchema } from "./episodes";
import { readOwnWrites, sessionVersions } from "../session-versions";

const PromptInput = z
  .object({
    agentId: AgentIdArg,
    query: RetrieveRequestSchema.shape.query.describe(
      "The task at hand, in words: past cases and, when the library does not fit, lessons are chosen for it",
    ),
    budgetTokens: PromptBudgetSchema.default(1500).describe("The most tokens the block may take"),
    phase: RetrieveRequestSchema.shape.phase.describe("The agent's phase; it sets how much learned utility counts against similarity"),
    episodeId: EpisodeHandleSchema.optional().describe("Link the block to an open episode, so its end rewards the lessons used"),
    filter: MemoryFilterSchema.optional().describe(
      "Only lessons and past cases it matches enter the block (metadata values, any of the tags, domain, created or used after an epoch-ms time)",
    ),
    minVersion: MinVersionSchema.optional(),
    consistency: ConsistencySchema.optional(),
  })
  .strict();

const AddExperienceInput = describedArgs(ExperienceCreateSchema.pick({ text: true, tags: true, metadata: true }), {
  text: "The lesson, one short imperative rule (e.g. `When an API answers 429, wait for Retry-After, then retry`)",
  tags: "Labels to filter retrieval by, e.g. `billing`",
  metadata: 'Flat key/value metadata to filter retrieval by, e.g. `{"customer": "acme"}`; never shown to a model',
}).extend({ agentId: AgentIdArg });
const AddExperienceOutput = ExperienceSchema.extend({
  libraryVersion: z.number().int().describe("The library version this addition made"),
  similar: SimilarLessonsSchema,
});

export function registerMemoryTools(server: McpServer, c: ToolContext) {
  const versions = sessionVersions(c);
  server.registerTool(
    "get_prompt",
    {
      description:
        "The block to put in the system prompt: the lesson library as `[G#]. …` lines (ranked for the query when it does not fit the budget), then similar past cases.",
      inputSchema: PromptInput,
      outputSchema: PromptBlockSchema,
      annotations: { readOnlyHint: true },
    },
    ({ agentId, query, budgetTokens, phase, episodeId, filter, minVersion, consistency }) =>
      guarded(c, async () => {
        const episode = episodeIdFor(agentId, episodeId);
        const request = {
          query,
          budgetTokens,
          ...(phase ? { phase } : {}),
          ...(episode ? { episodeId: episode } : {}),
          ...(filter ? { filter } : {}),
          ...(consistency ? { consistency } : {}),
        };
        const block = await readOwnWrites(versions, agentId, minVersion, async (atLeast) =>
          unwrap(await buildPrompt(depsOf(c), c.get("principal"), { agentId, request: { ...request, minVersion: atLeast } })),
        );
        return toolResult(block.prompt || "The library is empty so far.", block);
      }),
  );

  server.registerTool(
    "add_experience",
    {
      description: "Add a lesson to the agent's library (a new library version).",
      inputSchema: AddExperienceInput,
      outputSchema: AddExperienceOutput,
    },
    ({ agentId, ...input }) =>
      guarded(c, async () => {
        const { value: e } = unwrap(await addLesson(depsOf(c), c.get("principal"), { agentId, lesson: input, door: "mcp" }));
        await versions.remember(agentId, e.libraryVersion);
        const held =
          e.status === "quarantined"
            ? " It was quarantined (see the quarantine list for the reason) and will not be served unless an admin releases it."
            : e.status === "pending"
              ? " It waits for the safety review and is not served until it passes."
              : "";
        return toolResult(`Added ${e.id}${e.label ? ` as [${e.label}]` : ""} (library version ${e.libraryVersion}).${held}`, e);
      }),
  );
}
