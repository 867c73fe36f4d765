import type { JobMessage } from "./jobs/messages";
import type { Logger } from "./core/logger";
import type { Principal } from "./core/principal";

/**
 * Every binding and variable the Worker reads. Optional ones have embedded defaults.
 *
 * A leaf of the import graph: the Durable Object namespaces (typed by their classes, which read
 * this Env themselves) are added by types/durable-object-namespaces.d.ts, as `wrangler types`
 * declares bindings, so no module imports a Durable Object just to name the environment.
 */
export interface Env {
  DB: D1Database;
  JOBS: Queue<JobMessage>;
  /** Practice-run and evaluation units: their own queue, so a large run never delays live learning jobs. */
  PRACTICE: Queue<JobMessage>;
  /** API keys by SHA-256 (see services/keys); without it every isolate's cache miss reads D1. */
  PRAXIS_KEYS?: KVNamespace;
  PRAXIS_ADMIN_KEY?: string;
  MAX_BODY_BYTES?: string;
  LOG_LEVEL?: string;
  EMBEDDER?: string;
  EMBEDDING_MODEL?: string;
  EMBEDDING_DIMS?: string;
  EMBEDDING_BASE_URL?: string;
  EMBEDDING_API_KEY?: string;
  VECTOR_INDEX?: string;
  /** With VECTOR_INDEX = "auto": memories past which an agent moves to Vectorize (default 100000). */
  LOCAL_INDEX_LIMIT?: string;
  VECTORIZE?: VectorizeIndex;
  AI?: Ai;
  LLM_BASE_URL?: string;
  LLM_API_KEY?: string;
  LLM_MODEL?: string;
  LLM_MODEL_POLICY?: string;
  LLM_MODEL_JUDGE?: string;
  LLM_MODEL_SUMMARIZER?: string;
  LLM_MODEL_LEARNER?: string;
  LLM_TIMEOUT_MS?: string;
  LLM_MAX_CONCURRENCY?: string;
  LLM_MAX_RETRIES?: string;
  LLM_STRUCTURED_OUTPUT?: string;
  LLM_PRICES?: string;
  DAILY_TOKEN_BUDGET?: string;
  EPISODE_TTL_MINUTES?: string;
  /** `development` (wrangler dev), `test` or `production` (the default when unset): webhook URL rules depend on it. */
  PRAXIS_ENV?: string;
  PRACTICE_MAX_RUNS_PER_TENANT?: string;
  /** Bench only, ignored in production: latency added to each binding round trip (adapters/bench-latency). */
  BENCH_LATENCY?: string;
  /** Bench only, ignored in production: "off" resolves every key from D1, as before the edge caches. */
  BENCH_KEY_CACHE?: string;
  /** Edge reads (services/edge-reads): how old, in ms, a snapshot may be when it serves a read; default 2000. */
  READ_STALENESS_MS?: string;
  /** Edge reads: the largest snapshot, in bytes, a Worker takes; a larger agent is read through its object. Default 8 MiB. */
  READ_SNAPSHOT_MAX_BYTES?: string;
  /** Edge reads: bytes of snapshots one isolate keeps, least recently used evicted first. Default 48 MiB. */
  READ_CACHE_BYTES?: string;
  /** Evaluations of one tenant queued or running at once (a practice run's own count but are never refused); default 8. */
  EVALUATION_MAX_PER_TENANT?: string;
  /** Milliseconds a Worker holds token retrievals' use counters before applying them (src/services/retrieval-counters.ts); default 2000. */
  RETRIEVAL_COUNTS_FLUSH_MS?: string;
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
