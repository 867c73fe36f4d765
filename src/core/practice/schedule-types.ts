import { z } from "zod";
import { RunCreateSchema } from "./run-types";
import { DatasetRefSchema } from "./dataset-types";
import { parseEvery } from "../schedule";

/** A run's options without its dataset, as schedules and remedial practice store them. */
export const RunOptionsSchema = RunCreateSchema.omit({ datasetId: true });
export type RunOptions = z.infer<typeof RunOptionsSchema>;

export const SCHEDULE_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export const EverySchema = z
  .string()
  .min(1)
  .max(200)
  .superRefine((text, ctx) => {
    const r = parseEvery(text);
    if (!r.ok) ctx.addIssue({ code: "custom", message: r.message });
  })
  .describe("6h, 1d or 7d (aligned to UTC: 00:00, 06:00, … and midnight) or a five-field cron expression in UTC");

/** `PUT /v1/agents/:agentId/practice-schedules/:name`. */
export const SchedulePutSchema = z
  .object({
    every: EverySchema,
    datasetId: DatasetRefSchema,
    run: RunOptionsSchema,
    enabled: z.boolean().default(true),
  })
  .strict();
export type SchedulePut = z.infer<typeof SchedulePutSchema>;

/** What the last fire of a schedule did: started a run, or skipped and why. */
export const ScheduleFireSchema = z.object({
  at: z.number().int().describe("when the cron handled the fire (epoch ms)"),
  dueAt: z.number().int().describe("the due time it was for"),
  outcome: z.enum(["started", "skipped"]),
  reason: z.string().optional(),
  runId: z.string().optional(),
});
export type ScheduleFire = z.infer<typeof ScheduleFireSchema>;

export const ScheduleSchema = z.object({
  name: z.string(),
  every: z.string(),
  datasetId: z.string(),
  run: RunOptionsSchema,
  enabled: z.boolean(),
  nextDueAt: z.number().int().nullable().describe("null while disabled"),
  lastRun: ScheduleFireSchema.nullable(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
});
export type Schedule = z.infer<typeof ScheduleSchema>;
