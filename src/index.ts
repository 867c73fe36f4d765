import type { Env } from "./env";
import { createApp } from "./http/app";
import { consumeJobs } from "./jobs/consumer";
import { runScheduled } from "./cron";
import { withBenchLatency } from "./adapters/bench-latency";

export { AgentMemory } from "../durable-objects/agent-memory";
export { Evaluation, PracticeRun } from "./wiring";

const app = createApp();

export default {
  fetch: (request: Request, env: Env, ctx: ExecutionContext) => app.fetch(request, withBenchLatency(env), ctx),
  queue: (batch, env) => consumeJobs(batch, env),
  scheduled: async (controller, env) => {
    await runScheduled(controller, env);
  },
} satisfies ExportedHandler<Env, unknown>;
