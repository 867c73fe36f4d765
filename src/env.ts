import type { JobMessage } from "./core/job-messages";
import type { Logger } from "./core/logger";
import type { Principal } from "./core/principal";
import type { Variable } from "./config";

/**
 * Every binding the Worker reads, and its variables: strings (or unset) as wrangler gives them,
 * declared, defaulted and parsed once in src/config.ts, through which the code reads them.
 *
 * The Durable Object namespaces (typed by their classes, which read this Env themselves) are
 * added by types/durable-object-namespaces.d.ts, as `wrangler types` declares bindings, so no
 * module imports a Durable Object just to name the environment.
 */
export interface Env extends Partial<Record<Variable, string>> {
  DB: D1Database;
  JOBS: Queue<JobMessage>;
  /** Practice-run and evaluation units: their own queue, so a large run never delays live learning jobs. */
  PRACTICE: Queue<JobMessage>;
  /** API keys by SHA-256 (see platform/edge/key-store.ts); without it every isolate's cache miss reads D1. */
  PRAXIS_KEYS?: KVNamespace;
  VECTORIZE?: VectorizeIndex;
  AI?: Ai;
}

/** The one Hono environment used by every route and middleware. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    logger: Logger;
    principal: Principal;
  };
}
