import { createRoute, z } from "@hono/zod-openapi";
import { streamSSE } from "hono/streaming";
import { router, commonErrors, jsonBody, jsonResponse, security, unprocessableFields } from "../http/openapi";
import { CurveSchema, RolloutAnswerSchema, RunCreateSchema, RunStatusSchema, RunViewSchema } from "../core/practice/run-types";
import {
  cancelPracticeRun,
  getPracticeRun,
  getPracticeRunCurve,
  getPracticeRunLibrary,
  getPracticeRunStep,
  listPracticeRunRollouts,
  listPracticeRuns,
  listPracticeRunSteps,
  practiceRunEvents,
  startPracticeRun,
  submitRolloutResult,
} from "../use-cases/practice-runs";
import { ROLLOUT_SECRET_HEADER } from "../platform/practice/late-rollout";
import { depsOf, valueOf } from "../doors/use-case";
import { AgentParams, IdempotencyHeader, markReplay, PageQuery, queryNumber, timestamp } from "./schemas";
import { idString } from "../core/text-rules";

const base = "/v1/agents/{agentId}/practice-runs";
const RunParams = AgentParams.extend({
  runId: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "runId", in: "path" } }),
});
const StepParams = RunParams.extend({ n: queryNumber(z.number().int().min(0).max(100_000)).openapi({ param: { name: "n", in: "path" } }) });
const RunView = RunViewSchema.openapi("PracticeRun");
const Json = z.record(z.string(), z.unknown());

/** How long one event stream stays open; clients reconnect with Last-Event-ID and lose nothing. */
const SSE_MAX_MS = 5 * 60_000;
const SSE_POLL_MS = 500;

const RunListItem = z.object({
  runId: z.string(),
  datasetId: z.string(),
  status: RunStatusSchema,
  summary: Json.nullable(),
  error: z.string().nullable(),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const practiceRoutes = router()
  .openapi(
    createRoute({
      method: "post",
      path: base,
      tags: ["practice"],
      operationId: "startPracticeRun",
      summary: "Start a practice run",
      description:
        "Starts a Training-Free GRPO practice run on a dataset: rollouts with the library injected, verification, group summaries and one batch update of the library per step; the result is promoted as one library version. Needs an LLM. With `libraryId` the run practises on a shared library (the key needs write access to it): it starts from the library's lessons and promotes into the library.",
      security,
      request: { params: AgentParams, headers: IdempotencyHeader, ...jsonBody(RunCreateSchema.openapi("PracticeRunCreate")) },
      responses: {
        202: jsonResponse(z.object({ runId: z.string(), status: RunStatusSchema }), "Accepted; the run is queued"),
        ...commonErrors,
      },
    }),
    async (c) => {
      const input = {
        agentId: c.req.valid("param").agentId,
        run: c.req.valid("json"),
        idempotencyKey: c.req.valid("header")["idempotency-key"],
      };
      const r = valueOf(await startPracticeRun(depsOf(c), c.get("principal"), input));
      markReplay(c, r.replayed);
      return c.json({ runId: r.runId, status: r.status }, 202);
    },
    unprocessableFields("verifier"),
  )
  .openapi(
    createRoute({
      method: "get",
      path: base,
      tags: ["practice"],
      operationId: "listPracticeRuns",
      summary: "List practice runs",
      description: "Practice runs of the agent, newest first, with status and summary.",
      security,
      request: { params: AgentParams, query: PageQuery },
      responses: {
        200: jsonResponse(z.object({ items: z.array(RunListItem), nextCursor: z.string().nullable() }), "A page of runs"),
        ...commonErrors,
      },
    }),
    async (c) =>
      c.json(valueOf(await listPracticeRuns(depsOf(c), c.get("principal"), { ...c.req.valid("param"), ...c.req.valid("query") })), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: `${base}/{runId}`,
      tags: ["practice"],
      operationId: "getPracticeRun",
      summary: "Get a practice run",
      description: "A run: configuration, status, progress, train reward per step, tokens and cost.",
      security,
      request: { params: RunParams },
      responses: { 200: jsonResponse(RunView, "The run"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await getPracticeRun(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: `${base}/{runId}/events`,
      tags: ["practice"],
      operationId: "streamPracticeRunEvents",
      summary: "Stream a run's events",
      description: "Server-Sent Events: stage changes, rollout progress, each step's result, the end (resumable with Last-Event-ID).",
      security,
      request: {
        params: RunParams,
        headers: z.object({
          "last-event-id": z
            .string()
            .regex(/^\d{1,12}$/)
            .optional()
            .openapi({ param: { name: "last-event-id", in: "header" } }),
        }),
      },
      responses: { 200: { description: "An event stream", content: { "text/event-stream": { schema: z.string() } } }, ...commonErrors },
    }),
    async (c) => {
      const log = valueOf(await practiceRunEvents(depsOf(c), c.get("principal"), c.req.valid("param")));
      let after = Number(c.req.valid("header")["last-event-id"] ?? 0);
      return streamSSE(c, async (stream) => {
        const until = Date.now() + SSE_MAX_MS;
        while (!stream.aborted && Date.now() < until) {
          const { events, terminal } = await log.read(after, 200);
          for (const e of events) {
            await stream.writeSSE({ id: String(e.id), event: e.type, data: e.data });
            after = e.id;
          }
          if (terminal && events.length < 200) return;
          if (events.length === 0) await stream.sleep(SSE_POLL_MS);
        }
      });
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: `${base}/{runId}/steps`,
      tags: ["practice"],
      operationId: "listPracticeRunSteps",
      summary: "List a run's steps",
      description: "The run's steps, each with its mean train reward, library size and usage.",
      security,
      request: { params: RunParams },
      responses: { 200: jsonResponse(z.object({ items: z.array(Json) }), "Steps"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await listPracticeRunSteps(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: `${base}/{runId}/steps/{n}`,
      tags: ["practice"],
      operationId: "getPracticeRunStep",
      summary: "Get a run's step",
      description:
        "One step: groups kept and filtered with rewards, proposals with reasoning, the final plan, dropped ops with reasons, the library diff.",
      security,
      request: { params: StepParams },
      responses: { 200: jsonResponse(Json, "The step"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await getPracticeRunStep(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: `${base}/{runId}/rollouts`,
      tags: ["practice"],
      operationId: "listPracticeRunRollouts",
      summary: "List a run's rollouts",
      description: "Rollouts: answers, trajectories (size-capped), rewards and verifier reasoning.",
      security,
      request: {
        params: RunParams,
        query: z.object({
          epoch: z.coerce.number().int().min(0).optional(),
          step: z.coerce.number().int().min(0).optional(),
          taskId: idString(128).optional(),
          limit: z.coerce.number().int().min(1).max(200).default(50),
          cursor: z.string().max(200).optional(),
        }),
      },
      responses: {
        200: jsonResponse(z.object({ items: z.array(Json), nextCursor: z.string().nullable() }), "A page of rollouts"),
        ...commonErrors,
      },
    }),
    async (c) =>
      c.json(
        valueOf(await listPracticeRunRollouts(depsOf(c), c.get("principal"), { ...c.req.valid("param"), ...c.req.valid("query") })),
        200,
      ),
  )
  .openapi(
    createRoute({
      method: "get",
      path: `${base}/{runId}/library`,
      tags: ["practice"],
      operationId: "getPracticeRunLibrary",
      summary: "Get a run's library",
      description: "The run's own library as it stands, with labels and each experience's lineage.",
      security,
      request: { params: RunParams },
      responses: { 200: jsonResponse(Json, "The run's library"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await getPracticeRunLibrary(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: `${base}/{runId}/curve`,
      tags: ["practice"],
      operationId: "getPracticeRunCurve",
      summary: "Get a run's learning curve",
      description:
        "The learning curve: mean train reward, library size and tokens per step; holdout accuracy with its 95% interval per evaluated epoch (epoch 0, the starting library, first).",
      security,
      request: { params: RunParams },
      responses: { 200: jsonResponse(CurveSchema.openapi("PracticeCurve"), "The curve"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await getPracticeRunCurve(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: `${base}/{runId}/cancel`,
      tags: ["practice"],
      operationId: "cancelPracticeRun",
      summary: "Cancel a practice run",
      description: "Cancel a run; nothing is promoted. Cancelling a finished run changes nothing.",
      security,
      request: { params: RunParams },
      responses: { 200: jsonResponse(RunView, "The run"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await cancelPracticeRun(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/practice/rollouts/{rolloutId}/result",
      tags: ["practice"],
      operationId: "submitRolloutResult",
      summary: "Submit a webhook rollout's result",
      description:
        "The result of a webhook rollout (of a practice run or an evaluation) that was answered with 202. Only the rollout's holder may post it: send the dispatch's `resultSecret` in the X-Praxis-Rollout-Secret header (401 without it). A repeated identical result answers `duplicate`; a different one, or one after the rollout's deadline, 409.",
      security,
      request: {
        params: z.object({
          rolloutId: z
            .string()
            .min(1)
            .max(200)
            .openapi({ param: { name: "rolloutId", in: "path" } }),
        }),
        headers: z.object({
          "x-praxis-rollout-secret": z.string().max(200).optional().describe("the resultSecret sent with the rollout's dispatch"),
        }),
        ...jsonBody(RolloutAnswerSchema.openapi("RolloutAnswer")),
      },
      responses: {
        200: jsonResponse(z.object({ rolloutId: z.string(), status: z.enum(["accepted", "duplicate"]) }), "Recorded (or already recorded)"),
        ...commonErrors,
      },
    }),
    async (c) => {
      const input = {
        rolloutId: c.req.valid("param").rolloutId,
        answer: c.req.valid("json"),
        secret: c.req.header(ROLLOUT_SECRET_HEADER) ?? null,
      };
      return c.json(valueOf(await submitRolloutResult(depsOf(c), c.get("principal"), input)), 200);
    },
  );
