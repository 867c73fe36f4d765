import type { AgentMemory } from "../durable-objects/agent-memory";
import type { PracticeRun } from "../durable-objects/practice-run";
import type { Evaluation } from "../durable-objects/evaluation";
import type { JobMessage } from "./jobs/messages";
import type { Logger } from "./http/logger";
import type { Principal } from "./http/auth";
import type { agents } from "./db/schema";

/** Every binding and variable the Worker reads. Optional ones have embedded defaults. */
export interface Env {
  DB: D1Database;
  AGENT_MEMORY: DurableObjectNamespace<AgentMemory>;
  PRACTICE_RUN: DurableObjectNamespace<PracticeRun>;
  EVALUATION: DurableObjectNamespace<Evaluation>;
  JOBS: Queue<JobMessage>;
  /** Practice-run and evaluation units: their own queue, so a large run never delays live learning jobs. */
  PRACTICE: Queue<JobMessage>;
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
  /** Evaluations of one tenant queued or running at once (a practice run's own count but are never refused); default 8. */
  EVALUATION_MAX_PER_TENANT?: string;
}

/** The one Hono environment used by every route and middleware. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    logger: Logger;
    principal: Principal;
    /** The agent named in the path, looked up together with the API key (null: no such agent in the key's tenant). */
    agentLookup?: { agentId: string; row: typeof agents.$inferSelect | null };
  };
}
