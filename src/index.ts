import type { Env } from "./env";
import { createApp } from "./app";
import { consumeJobs } from "./jobs/consumer";
import { runScheduled } from "./cron";
import { tracedQueue } from "./trace";
import { derivedEnv } from "./config";

export { AgentMemory } from "../durable-objects/agent-memory";
export { Evaluation, PracticeRun } from "./wiring";

const app = createApp();

/** The bindings, with queues that stamp each message with the trace of the work sending it (src/trace.ts). */
const traced = (env: Env): Env => derivedEnv(env, { ...env, JOBS: tracedQueue(env.JOBS), PRACTICE: tracedQueue(env.PRACTICE) });

export default {
  fetch: (request: Request, env: Env, ctx: ExecutionContext) => app.fetch(request, traced(env), ctx),
  queue: (batch, env) => consumeJobs(batch, traced(env)),
  scheduled: async (controller, env) => {
    await runScheduled(controller, env);
  },
} satisfies ExportedHandler<Env, unknown>;
