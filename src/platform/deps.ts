import type { Env } from "../env";
import type { Logger } from "../core/logger";
import type { Principal } from "../core/principal";

/**
 * What every use case may use, whichever door called it (REST, MCP, a queue job, cron): the
 * bindings, a way to finish work after the answer, a logger and the id tying logs to the request.
 */
export interface Deps {
  env: Env;
  waitUntil(promise: Promise<unknown>): void;
  logger: Logger;
  requestId: string;
}

/** Who is asking: the verified API key (or the operator) a use case checks scope and tenant against. */
export type Caller = Principal;
