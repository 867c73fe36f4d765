import { z } from "zod";
import type { McpServer } from "@modelcontextprotocol/server";
import { ExperienceSchema, SimilarLessonsSchema } from "../../core/memory-types";
import { LibraryIdSchema, SharedLibrarySchema } from "../../core/shared-lessons";
import { unwrap } from "../../core/errors";
import { listLibraries, shareLesson } from "../../use-cases/libraries";
import { depsOf } from "../../doors/use-case";
import { AgentIdArg, guarded, plural, toolResult, type ToolContext } from "../tool";

const ListInput = z
  .object({
    limit: z.number().int().min(1).max(200).default(50).describe("How many libraries to return (1-200)"),
    cursor: z.string().max(200).optional().describe("nextCursor of the previous page, to read the next one"),
  })
  .strict();
const ListOutput = z.object({ items: z.array(SharedLibrarySchema), nextCursor: z.string().nullable() });

const ShareInput = z
  .object({
    agentId: AgentIdArg,
    experienceId: z
      .string()
      .min(1)
      .max(64)
      .describe("The id of the agent's lesson to share (as pull_experiences or add_experience returned it)"),
    libraryId: LibraryIdSchema.describe("The shared library to copy it into (`lib_…`; list_libraries lists them)"),
  })
  .strict();
const ShareOutput = ExperienceSchema.extend({
  libraryId: z.string().describe("The library the copy is in"),
  libraryVersion: z.number().int().describe("The library version this share made"),
  similar: SimilarLessonsSchema,
});

/** Shared libraries: lessons several agents of the tenant draw on, each learning for itself which work. */
export function registerLibraryTools(server: McpServer, c: ToolContext) {
  server.registerTool(
    "list_libraries",
    {
      description:
        "The tenant's shared libraries this API key can use: lessons several agents draw on beside their own, each agent learning its own Q for them.",
      inputSchema: ListInput,
      outputSchema: ListOutput,
      annotations: { readOnlyHint: true },
    },
    ({ limit, cursor }) =>
      guarded(c, async () => {
        const page = unwrap(await listLibraries(depsOf(c), c.get("principal"), { limit, cursor }));
        const names = page.items.map((l) => `${l.libraryId} (${l.name})`);
        const text = page.items.length
          ? `${plural(page.items.length, "library", "libraries")}: ${names.join(", ")}${page.nextCursor ? "; more with the nextCursor" : ""}.`
          : "No shared libraries yet.";
        return toolResult(text, page);
      }),
  );

  server.registerTool(
    "share_experience",
    {
      description:
        "Copy one of the agent's lessons into a shared library, where its subscribers draw on it. The copy goes through the library's safety screening (a flagged lesson is quarantined there, not shared) and records which agent and lesson it came from.",
      inputSchema: ShareInput,
      outputSchema: ShareOutput,
    },
    ({ agentId, experienceId, libraryId }) =>
      guarded(c, async () => {
        const { value: e } = unwrap(await shareLesson(depsOf(c), c.get("principal"), { agentId, id: experienceId, libraryId }));
        const held =
          e.status === "quarantined"
            ? " It was quarantined there and is not served unless an admin releases it."
            : e.status === "pending"
              ? " It waits for the safety review there."
              : "";
        return toolResult(`Shared ${experienceId} into ${libraryId} as ${e.id} (library version ${e.libraryVersion}).${held}`, e);
      }),
  );
}
