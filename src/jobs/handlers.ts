import type { Env } from "../env";
import type { Logger } from "../http/logger";
import type { JobMessage, JobType } from "./messages";
import { memoryStub } from "../services/agent-memory";

type Handler<T extends JobType> = (msg: Extract<JobMessage, { type: T }>, env: Env, log: Logger) => Promise<unknown>;

/** One handler per message type; the mapped type makes a missing handler a compile error. */
export const jobHandlers: { [T in JobType]: Handler<T> } = {
  "agent.sweep": async (msg, env) => memoryStub(env, msg.tenantId, msg.agentId).sweep(msg.at),
};
