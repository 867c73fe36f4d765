import type { Env } from "./env";
import { createApp } from "./http/app";
import { consumeJobs } from "./jobs/consumer";
import { runScheduled } from "./cron";

export { AgentMemory } from "../durable-objects/agent-memory";
export { PracticeRun } from "../durable-objects/practice-run";
export { Evaluation } from "../durable-objects/evaluation";

const app = createApp();

export default {
  fetch: app.fetch,
  queue: (batch, env) => consumeJobs(batch, env),
  scheduled: async (controller, env) => {
    await runScheduled(controller, env);
  },
} satisfies ExportedHandler<Env, unknown>;
