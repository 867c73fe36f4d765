import { z } from "zod";
import { EventSchema, MAX_EVENTS_PER_MESSAGE } from "./events";

/** A W3C trace context carried with a message, so its work joins the trace of the request that queued it. */
const Trace = { traceparent: z.string().max(55).optional() };

/**
 * `incarnation`: the agent's when the message was queued (see durable-objects/agent-memory/object/lifecycle.ts);
 * an agent deleted and created again since does not take the message. Absent: queued by the
 * control plane (the cron), for whichever agent is current.
 */
const AgentRef = { tenantId: z.string().min(1), agentId: z.string().min(1), incarnation: z.string().min(1).max(64).optional() };

/** Every message on the praxis-jobs queue. `id` makes redelivery idempotent where a job writes. */
export const JobMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("agent.sweep"), ...AgentRef, at: z.number().int() }),
  z.object({ type: z.literal("agent.remedial"), ...AgentRef, at: z.number().int() }),
  z.object({ type: z.literal("agent.reembed"), ...AgentRef, model: z.string().min(1) }),
  z.object({ type: z.literal("live.extract"), ...AgentRef, episodeId: z.string().min(1), jobId: z.string().min(1) }),
  z.object({ type: z.literal("admission.review"), ...AgentRef }),
  z.object({ type: z.literal("lesson.when"), ...AgentRef }),
  z.object({ type: z.literal("practice.unit"), runId: z.string().min(1), key: z.string().min(1) }),
  z.object({ type: z.literal("evaluation.unit"), evaluationId: z.string().min(1), key: z.string().min(1) }),
  z.object({
    type: z.literal("event.emit"),
    tenantId: z.string().min(1),
    events: z.array(EventSchema).min(1).max(MAX_EVENTS_PER_MESSAGE),
    ...Trace,
  }),
  z.object({ type: z.literal("event.deliver"), tenantId: z.string().min(1), deliveryId: z.string().min(1), ...Trace }),
]);

export type JobMessage = z.infer<typeof JobMessageSchema>;
export type JobType = JobMessage["type"];

/** Must match `max_retries` of the praxis-jobs consumer in wrangler.toml: after this many retries a message goes to the DLQ. */
export const QUEUE_MAX_RETRIES = 3;
