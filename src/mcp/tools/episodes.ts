import { z } from "zod";
import type { McpServer } from "@modelcontextprotocol/server";
import {
  AttemptCreateSchema,
  AttemptSchema,
  EpisodeCreateSchema,
  EpisodeEndSchema,
  EpisodeSchema,
  type Episode,
} from "../../core/episode-types";
import { MemoryFilterSchema } from "../../core/memory-types";
import { ConsistencySchema, MinVersionSchema, RetrieveRequestSchema, RetrieveResponseSchema } from "../../core/retrieval-types";
import { libraryLine, oneLine } from "../../core/library-block";
import { AgentIdSchema } from "../../core/api-key";
import { depsOf } from "../../doors/use-case";
import { endEpisode, logAttempt, startEpisode } from "../../use-cases/episodes";
import { retrieve } from "../../use-cases/retrieval";
import { fieldErrors, invalid, unwrap } from "../../core/errors";
import { AgentIdArg, describedArgs, guarded, plural, toolResult, type ToolContext } from "../tool";
import { readOwnWrites, sessionVersions } from "../session-versions";

/**
 * The live-episode tools take only an `episodeId` after the start, so the id handed out names the
 * agent as well: `agentId:ep_…`.
 */
const HANDLE_SEPARATOR = ":";
export const EpisodeHandleSchema = z.string().min(3).max(200).describe("The episodeId that start_episode returned (`agentId:ep_…`)");

const episodeHandle = (agentId: string, episodeId: string) => `${agentId}${HANDLE_SEPARATOR}${episodeId}`;

function parseHandle(handle: string) {
  const at = handle.indexOf(HANDLE_SEPARATOR);
  const agentId = handle.slice(0, at);
  const episodeId = handle.slice(at + 1);
  if (at < 0 || !AgentIdSchema.safeParse(agentId).success || !episodeId) {
    throw invalid(`'${handle}' is not an episodeId from start_episode.`, [{ path: "episodeId", message: "Expected `agentId:ep_…`" }]);
  }
  return { agentId, episodeId };
}

/** An episode handle passed next to an agentId must belong to that agent. */
export function episodeIdFor(agentId: string, handle: string | undefined) {
  if (handle === undefined) return undefined;
  const h = parseHandle(handle);
  if (h.agentId !== agentId) {
    throw invalid(`Episode '${handle}' belongs to agent '${h.agentId}', not '${agentId}'.`, [
      { path: "episodeId", message: "Another agent's episode" },
    ]);
  }
  return h.episodeId;
}

const withHandle = (agentId: string, ep: Episode) => ({ ...ep, episodeId: episodeHandle(agentId, ep.id) });

const StartInput = describedArgs(EpisodeCreateSchema, {
  task: "The task the agent is about to work on, as it was given",
  metadata: "Flat key-value facts about the episode (strings, numbers, booleans), e.g. a ticket id",
}).extend({ agentId: AgentIdArg });

const LogAttemptInput = z
  .object({
    episodeId: EpisodeHandleSchema,
    description: AttemptCreateSchema.shape.description.describe("What was tried, in a sentence"),
    error: AttemptCreateSchema.shape.error.describe("The error or stack trace, if it failed; digested and redacted before storage"),
    success: AttemptCreateSchema.shape.ok.describe("Whether this attempt worked"),
    infrastructure: AttemptCreateSchema.shape.infrastructure,
  })
  .strict();

const EndInput = z
  .object({
    episodeId: EpisodeHandleSchema,
    result: EpisodeEndSchema.shape.answer
      .unwrap()
      .describe("The final answer or outcome, in words; [G#] labels quoted here count as citations"),
    success: z.boolean().optional().describe("Whether the task was accomplished (or give `outcome`)"),
    outcome: EpisodeEndSchema.shape.outcome
      .optional()
      .describe(
        "The outcome by name, instead of `success`: `abandoned` when the work stopped for a reason outside the task (no reward, no case, no lesson)",
      ),
    notes: z.string().max(2000).optional().describe("What is worth remembering; stored after the result"),
    score: EpisodeEndSchema.shape.score.describe("Quality in [0,1]; multiplies the reward of the outcome"),
    citedIds: EpisodeEndSchema.shape.citedIds.describe("Ids or [G#] labels of the lessons that actually helped; only cited lessons learn"),
  })
  .strict();

const PullInput = z
  .object({
    agentId: AgentIdArg,
    query: RetrieveRequestSchema.shape.query.describe("What the agent is about to do, in words"),
    limit: RetrieveRequestSchema.shape.k2.unwrap().default(5).describe("How many lessons to return (1-100)"),
    phase: RetrieveRequestSchema.shape.phase.describe("The agent's phase; it sets how much learned utility counts against similarity"),
    episodeId: EpisodeHandleSchema.optional().describe("Link the pull to an open episode, so its end rewards what was pulled"),
    filter: MemoryFilterSchema.optional().describe(
      "Only lessons it matches (metadata values, any of the tags, domain, created or used after an epoch-ms time); the top `limit` are the best of them",
    ),
    minVersion: MinVersionSchema.optional(),
    consistency: ConsistencySchema.optional(),
  })
  .strict();

const EpisodeOutput = EpisodeSchema.extend({ episodeId: EpisodeHandleSchema.describe("Pass this to log_attempt and end_episode") });

export function registerEpisodeTools(server: McpServer, c: ToolContext) {
  const deps = depsOf(c);
  const versions = sessionVersions(c);
  const caller = c.get("principal");

  server.registerTool(
    "start_episode",
    {
      description:
        "Start an episode: one task the agent is about to work on. Returns the episodeId for get_prompt, pull_experiences, log_attempt and end_episode.",
      inputSchema: StartInput,
      outputSchema: EpisodeOutput,
    },
    ({ agentId, ...input }) =>
      guarded(c, async () => {
        const { episode } = unwrap(await startEpisode(deps, caller, { agentId, episode: input }));
        const out = withHandle(agentId, episode);
        return toolResult(`Episode started. Pass episodeId "${out.episodeId}" to log_attempt and end_episode.`, out);
      }),
  );

  server.registerTool(
    "log_attempt",
    { description: "Log one attempt of an open episode, successful or not.", inputSchema: LogAttemptInput, outputSchema: AttemptSchema },
    ({ episodeId, description, error, success, infrastructure }) =>
      guarded(c, async () => {
        const attempt = {
          description,
          ok: success,
          ...(error !== undefined ? { error } : {}),
          ...(infrastructure !== undefined ? { infrastructure } : {}),
        };
        const logged = unwrap(await logAttempt(deps, caller, { ...parseHandle(episodeId), attempt }));
        return toolResult(`Attempt ${logged.n} logged (${logged.ok ? "succeeded" : "failed"}).`, logged);
      }),
  );

  server.registerTool(
    "end_episode",
    {
      description:
        "End an episode: rewards the lessons it cited (or, without citations, what it pulled), stores it as a case, and learns a lesson when it had both failed and successful attempts. Idempotent: ending again changes nothing and returns the first result.",
      inputSchema: EndInput,
      outputSchema: EpisodeOutput,
    },
    ({ episodeId, result, success, outcome, notes, score, citedIds }) =>
      guarded(c, async () => {
        if (outcome === undefined && success === undefined) {
          throw invalid("Say how the episode ended: `success` (true or false) or `outcome`.", [
            { path: "success", message: "Required unless `outcome` is given" },
          ]);
        }
        const h = parseHandle(episodeId);
        const parsed = EpisodeEndSchema.safeParse({
          outcome: outcome ?? (success ? "success" : "failure"),
          answer: notes ? `${result}\n\nNotes: ${notes}` : result,
          score,
          citedIds,
        });
        if (!parsed.success) throw invalid("The episode end is not valid.", fieldErrors(parsed.error.issues));
        const { episode: ep, alreadyEnded } = unwrap(await endEpisode(deps, caller, { ...h, end: parsed.data, noticeRepeat: true }));
        const text = alreadyEnded ? `Episode had already ended (${ep.outcome}); nothing changed.` : endedText(ep);
        return toolResult(text, withHandle(h.agentId, ep));
      }),
  );

  server.registerTool(
    "pull_experiences",
    {
      description:
        "The lessons most likely to help with a task, ranked by similarity and learned utility (Q). Cite the ids or labels that helped in end_episode.",
      inputSchema: PullInput,
      outputSchema: RetrieveResponseSchema,
      annotations: { readOnlyHint: true },
    },
    ({ agentId, query, limit, phase, episodeId, filter, minVersion, consistency }) =>
      guarded(c, async () => {
        const episode = episodeIdFor(agentId, episodeId);
        const request = {
          query,
          k2: limit,
          kinds: ["experience" as const],
          ...(phase ? { phase } : {}),
          ...(episode ? { episodeId: episode } : {}),
          ...(filter ? { filter } : {}),
          ...(consistency ? { consistency } : {}),
        };
        const r = await readOwnWrites(versions, agentId, minVersion, async (atLeast) =>
          unwrap(await retrieve(deps, caller, { agentId, request: { ...request, minVersion: atLeast } })),
        );
        const lines = r.items.map(
          (i) =>
            `${i.label ? libraryLine({ label: i.label, text: i.text }) : `- ${oneLine(i.text)}`} (id ${i.id}${i.libraryId ? `, shared library ${i.libraryId}` : ""}, Q ${i.q.toFixed(2)})`,
        );
        return toolResult(lines.length ? lines.join("\n") : "No experience matches this query yet.", r);
      }),
  );
}

function endedText(ep: Episode): string {
  const r = ep.result;
  if (!r) return `Episode ended (${ep.outcome}).`;
  const extraction =
    r.extraction === "queued" ? "a lesson will be extracted from its failed and successful attempts" : "no lesson extraction needed";
  const held =
    r.case && r.case.status !== "active"
      ? ` Its case is ${r.case.status}${r.case.reason ? ` (${r.case.reason})` : ""}, so it is not retrieved.`
      : "";
  return `Episode ended (${ep.outcome}): reward ${r.reward}, ${plural(r.rewarded.length, "memory", "memories")} rewarded; ${extraction}.${held}`;
}
