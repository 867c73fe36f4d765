import { createRoute, z } from "@hono/zod-openapi";
import { router, commonErrors, jsonBody, jsonResponse, security, unprocessableFields } from "../http/openapi";
import { SCHEDULE_NAME_RE, SchedulePutSchema, ScheduleSchema } from "../core/practice/schedule-types";
import { deletePracticeSchedule, getPracticeSchedule, listPracticeSchedules, putPracticeSchedule } from "../use-cases/schedules";
import { depsOf, valueOf } from "../doors/use-case";
import { AgentParams } from "./schemas";

const base = "/v1/agents/{agentId}/practice-schedules";
const ScheduleParams = AgentParams.extend({
  name: z
    .string()
    .regex(SCHEDULE_NAME_RE, "Schedule names are 1-64 chars of letters, digits, '_', '.' and '-', starting with a letter or digit")
    .openapi({ param: { name: "name", in: "path" }, example: "nightly" }),
});
const Schedule = ScheduleSchema.openapi("PracticeSchedule");

export const scheduleRoutes = router()
  .openapi(
    createRoute({
      method: "put",
      path: `${base}/{name}`,
      tags: ["practice"],
      operationId: "putPracticeSchedule",
      summary: "Create or replace a practice schedule: a run on a dataset every 6h, 1d, 7d or on a cron expression (UTC)",
      description:
        "Each due time starts at most one run, however often or late the cron fires; while another run of the agent is going, or the tenant's daily token budget is used up, the fire is recorded in `lastRun` as skipped.",
      security,
      request: { params: ScheduleParams, ...jsonBody(SchedulePutSchema.openapi("PracticeSchedulePut")) },
      responses: { 200: jsonResponse(Schedule, "Replaced"), 201: jsonResponse(Schedule, "Created"), ...commonErrors },
    }),
    async (c) => {
      const input = { ...c.req.valid("param"), schedule: c.req.valid("json") };
      const { schedule, created } = valueOf(await putPracticeSchedule(depsOf(c), c.get("principal"), input));
      return c.json(schedule, created ? 201 : 200);
    },
    unprocessableFields("run.verifier"),
  )
  .openapi(
    createRoute({
      method: "get",
      path: base,
      tags: ["practice"],
      operationId: "listPracticeSchedules",
      summary: "List practice schedules",
      description: "The agent's practice schedules with their next due time and last fire.",
      security,
      request: { params: AgentParams },
      responses: { 200: jsonResponse(z.object({ items: z.array(Schedule) }), "Schedules by name"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await listPracticeSchedules(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: `${base}/{name}`,
      tags: ["practice"],
      operationId: "getPracticeSchedule",
      summary: "Get a practice schedule",
      description: "One practice schedule with its next due time and last fire.",
      security,
      request: { params: ScheduleParams },
      responses: { 200: jsonResponse(Schedule, "The schedule"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await getPracticeSchedule(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
  )
  .openapi(
    createRoute({
      method: "delete",
      path: `${base}/{name}`,
      tags: ["practice"],
      operationId: "deletePracticeSchedule",
      summary: "Delete a practice schedule",
      description: "Deletes a practice schedule; runs it already started go on.",
      security,
      request: { params: ScheduleParams },
      responses: {
        200: jsonResponse(z.object({ name: z.string(), deleted: z.literal(true) }).openapi("DeletedPracticeSchedule"), "Deleted"),
        ...commonErrors,
      },
    }),
    async (c) => c.json(valueOf(await deletePracticeSchedule(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
  );
