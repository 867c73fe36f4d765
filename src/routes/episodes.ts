import { createRoute, z } from "@hono/zod-openapi";
import { router, commonErrors, jsonBody, jsonResponse, security } from "../http/openapi";
import {
  AttemptCreateSchema,
  AttemptSchema,
  EpisodeCreateSchema,
  EpisodeEndSchema,
  EpisodeRetrievalSchema,
  EpisodeSchema,
  JobSchema,
} from "../core/episode-types";
import { depsOf, valueOf } from "../doors/use-case";
import { endEpisode, getEpisode, listEpisodeRetrievals, listEpisodes, logAttempt, startEpisode } from "../use-cases/episodes";
import { listJobs, retryJob } from "../use-cases/live-jobs";
import { AgentParams, IdempotencyHeader, markReplay, queryLimit } from "./schemas";

const Episode = EpisodeSchema.openapi("Episode");
const EpisodeParams = AgentParams.extend({
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" } }),
});
const base = "/v1/agents/{agentId}/episodes";

export const episodeRoutes = router()
  .openapi(
    createRoute({
      method: "post",
      path: base,
      tags: ["episodes"],
      operationId: "startEpisode",
      summary: "Start an episode",
      description:
        "Starts an episode: one task the agent is working on. Pass its id to `getPrompt` or `retrieve` (episodeId) so that ending it rewards what they showed.",
      security,
      request: { params: AgentParams, headers: IdempotencyHeader, ...jsonBody(EpisodeCreateSchema.openapi("EpisodeCreate")) },
      responses: { 201: jsonResponse(Episode.extend({ episodeId: z.string() }), "Started"), ...commonErrors },
    }),
    async (c) => {
      const input = { ...c.req.valid("param"), episode: c.req.valid("json"), idempotencyKey: c.req.valid("header")["idempotency-key"] };
      const { episode, replayed } = valueOf(await startEpisode(depsOf(c), c.get("principal"), input));
      markReplay(c, replayed);
      return c.json({ episodeId: episode.id, ...episode }, 201);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: `${base}/{id}/attempts`,
      tags: ["episodes"],
      operationId: "logAttempt",
      summary: "Log an attempt",
      description:
        "Logs one attempt at the episode's task. Stack traces are digested (type @ file:line: message) and secrets redacted before storage.",
      security,
      request: { params: EpisodeParams, ...jsonBody(AttemptCreateSchema.openapi("AttemptCreate")) },
      responses: { 201: jsonResponse(AttemptSchema.openapi("Attempt"), "Logged"), ...commonErrors },
    }),
    async (c) => {
      const { agentId, id: episodeId } = c.req.valid("param");
      return c.json(valueOf(await logAttempt(depsOf(c), c.get("principal"), { agentId, episodeId, attempt: c.req.valid("json") })), 201);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: `${base}/{id}/end`,
      tags: ["episodes"],
      operationId: "endEpisode",
      summary: "End an episode",
      description: "End an episode: rewards what it retrieved, stores a case, queues live extraction on mixed results; idempotent.",
      security,
      request: { params: EpisodeParams, ...jsonBody(EpisodeEndSchema.openapi("EpisodeEnd")) },
      responses: { 200: jsonResponse(Episode, "Ended (or the first result when already ended)"), ...commonErrors },
    }),
    async (c) => {
      const { agentId, id: episodeId } = c.req.valid("param");
      return c.json(
        valueOf(await endEpisode(depsOf(c), c.get("principal"), { agentId, episodeId, end: c.req.valid("json") })).episode,
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: `${base}/{id}`,
      tags: ["episodes"],
      operationId: "getEpisode",
      summary: "Get an episode",
      description: "One episode with its attempts, answer, outcome and the result of ending it.",
      security,
      request: { params: EpisodeParams },
      responses: { 200: jsonResponse(Episode, "The episode"), ...commonErrors },
    }),
    async (c) => {
      const { agentId, id: episodeId } = c.req.valid("param");
      return c.json(valueOf(await getEpisode(depsOf(c), c.get("principal"), { agentId, episodeId })), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: `${base}/{id}/retrievals`,
      tags: ["episodes"],
      operationId: "listEpisodeRetrievals",
      summary: "List an episode's retrievals",
      description:
        "What the agent retrieved for the episode, oldest first: each query with the items it returned in rank order, their scores and signals, and whether a reward has credited it. Retrievals older than the agent's retention are gone.",
      security,
      request: { params: EpisodeParams },
      responses: {
        200: jsonResponse(z.object({ items: z.array(EpisodeRetrievalSchema.openapi("EpisodeRetrieval")) }), "The retrievals"),
        ...commonErrors,
      },
    }),
    async (c) => {
      const { agentId, id: episodeId } = c.req.valid("param");
      return c.json(valueOf(await listEpisodeRetrievals(depsOf(c), c.get("principal"), { agentId, episodeId })), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: base,
      tags: ["episodes"],
      operationId: "listEpisodes",
      summary: "List episodes",
      description: "Episodes, newest first, with their attempts and results; cursor pagination, optionally only open or ended ones.",
      security,
      request: {
        params: AgentParams,
        query: z.object({
          limit: queryLimit(200, 50),
          cursor: z.string().max(200).optional(),
          status: z.enum(["open", "ended"]).optional(),
        }),
      },
      responses: { 200: jsonResponse(z.object({ items: z.array(Episode), nextCursor: z.string().nullable() }), "A page"), ...commonErrors },
    }),
    async (c) => {
      return c.json(valueOf(await listEpisodes(depsOf(c), c.get("principal"), { ...c.req.valid("param"), ...c.req.valid("query") })), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/agents/{agentId}/jobs",
      tags: ["jobs"],
      operationId: "listJobs",
      summary: "List background jobs",
      description: "Recent background jobs (live extraction) with status and reason.",
      security,
      request: {
        params: AgentParams,
        query: z.object({
          limit: queryLimit(200, 50),
          status: JobSchema.shape.status.optional(),
        }),
      },
      responses: { 200: jsonResponse(z.object({ items: z.array(JobSchema.openapi("Job")) }), "Jobs"), ...commonErrors },
    }),
    async (c) => {
      return c.json(valueOf(await listJobs(depsOf(c), c.get("principal"), { ...c.req.valid("param"), ...c.req.valid("query") })), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/agents/{agentId}/jobs/{id}/retry",
      tags: ["jobs"],
      operationId: "retryJob",
      summary: "Retry a background job",
      description: "Queues a skipped or failed live-extraction job again. Needs an LLM: without one it answers 503.",
      security,
      request: { params: EpisodeParams },
      responses: { 202: jsonResponse(JobSchema, "Queued"), ...commonErrors },
    }),
    async (c) => {
      const { agentId, id: jobId } = c.req.valid("param");
      return c.json(valueOf(await retryJob(depsOf(c), c.get("principal"), { agentId, jobId })), 202);
    },
  );
