import type { Env } from "../env";
import type { Logger } from "../http/logger";
import type { JobMessage, JobType } from "./messages";
import { callMemory, memoryStub } from "../services/agent-memory";

type Handler<T extends JobType> = (msg: Extract<JobMessage, { type: T }>, env: Env, log: Logger) => Promise<unknown>;

/** One handler per message type; the mapped type makes a missing handler a compile error. */
export const jobHandlers: { [T in JobType]: Handler<T> } = {
  "agent.sweep": async (msg, env) => callMemory(() => memoryStub(env, msg.tenantId, msg.agentId).sweep(msg.at)),
  // Re-embedding goes in batches; each batch re-queues the next so no invocation runs long.
  "agent.reembed": async (msg, env) => {
    const result = await memoryStub(env, msg.tenantId, msg.agentId).reembed(msg.model);
    if (!result.stale && result.remaining > 0) await env.JOBS.send(msg);
    return result;
  },
};
