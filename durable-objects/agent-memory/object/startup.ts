import type { Env } from "../../../src/env";
import { AgentConfigSchema, defaultAgentConfig, type AgentConfig } from "../../../src/core/agent-config";
import { sha256Hex } from "../../../src/core/api-key";
import type { ExactVectors } from "../../../src/core/int8-matrix";
import { chooseVectorIndex } from "../../../src/core/vector-index-choice";
import { createEmbedder, EmbedderConfigError } from "../../../src/adapters/embedder-factory";
import type { Embedder } from "../../../src/adapters/embedder";
import { embeddingMeter } from "../../../src/llm";
import { agentIdentity } from "./lifecycle";
import { LocalVectorIndex } from "../../../src/adapters/vector-indexes/local";
import { VectorizeVectorIndex } from "../../../src/adapters/vector-indexes/vectorize";
import type { MemoryContext } from "../storage/context";
import { VectorStore } from "../vectors/store";
import { SqlVectorItems } from "../vectors/items";
import { Library } from "../library/library";
import { Cases } from "../episodes/cases";
import { Retrieval, type CandidateInfo } from "../retrieval/retrieval";
import { PromptAssembly } from "../retrieval/prompt";
import { Utility } from "../rewards/utility";
import { Jobs } from "../episodes/jobs";
import { Episodes } from "../episodes/episodes";
import { LiveLessons } from "../library/live-lessons";
import { IdempotencyStore } from "../storage/idempotency";
import { Quarantine } from "../screening/quarantine";
import { Subscriptions, type LibraryPort } from "../sharing/subscriptions";

/** The agent's storage modules, wired to one context: what the AgentMemory DO serves its calls from. */
export interface Rooms {
  library: Library;
  cases: Cases;
  retrieval: Retrieval;
  prompts: PromptAssembly;
  utility: Utility;
  jobs: Jobs;
  episodes: Episodes;
  lessons: LiveLessons;
  idempotency: IdempotencyStore;
  quarantine: Quarantine;
  subscriptions: Subscriptions<CandidateInfo>;
}

export function openRooms(
  mem: MemoryContext,
  enqueueExtraction: (episodeId: string, jobId: string) => Promise<void>,
  libraries: LibraryPort<CandidateInfo>,
  onLibraryFailure: (libraryId: string, err: unknown) => void,
): Rooms {
  const library = new Library(mem);
  const cases = new Cases(mem);
  const retrieval = new Retrieval(mem, library);
  const subscriptions = new Subscriptions(mem, libraries);
  retrieval.shared = subscriptions;
  retrieval.onSharedFailure = onLibraryFailure;
  const utility = new Utility(mem, library, retrieval);
  const jobs = new Jobs(mem);
  const idempotency = new IdempotencyStore(mem);
  return {
    library,
    cases,
    retrieval,
    prompts: new PromptAssembly(mem, library, retrieval),
    utility,
    jobs,
    episodes: new Episodes(mem, cases, utility, jobs, idempotency, enqueueExtraction),
    lessons: new LiveLessons(mem, library, jobs),
    idempotency,
    quarantine: new Quarantine(mem, library, cases),
    subscriptions,
  };
}

export function loadConfig(sql: SqlStorage): AgentConfig {
  const row = sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'config'").toArray()[0];
  if (!row) return defaultAgentConfig();
  const parsed = AgentConfigSchema.safeParse(JSON.parse(row.value));
  return parsed.success ? parsed.data : defaultAgentConfig();
}

/**
 * The agent's vector store on the index the deployment and the agent's size call for (see
 * chooseVectorIndex). `name` is the object's name: it scopes the agent's ids in a shared index.
 */
export async function buildVectorStore(sql: SqlStorage, env: Env, config: AgentConfig, name: string): Promise<VectorStore> {
  const embedder = metered(createEmbedder(env, config.embedder ?? undefined), env, name);
  const now = () => Date.now();
  const facts = VectorStore.facts(sql, embedder.model);
  const choice = chooseVectorIndex({ setting: env.VECTOR_INDEX, limit: env.LOCAL_INDEX_LIMIT, hasBinding: Boolean(env.VECTORIZE), ...facts });
  const binding = choice === "vectorize" ? env.VECTORIZE : undefined;
  // Namespaces are capped at 64 bytes and must separate vector spaces, so hash name + model.
  const namespace = binding ? `ns_${(await sha256Hex(`${name}|${embedder.model}`)).slice(0, 40)}` : "";
  const makeIndex = (dims: number, exact: ExactVectors) =>
    binding ? new VectorizeVectorIndex(binding, namespace, { dims, now, idScope: name }) : new LocalVectorIndex(dims, exact);
  return new VectorStore(sql, embedder, {
    makeIndex,
    items: new SqlVectorItems(sql),
    now,
    movingToRemote: binding !== undefined && env.VECTOR_INDEX === "auto" && !facts.switched,
  });
}

/**
 * An embedder that spends a paid endpoint's tokens (the operator's key) does so through the usage
 * ledger, in the name of the agent's tenant: each request is a row and counts in the daily budget.
 */
function metered(embedder: Embedder, env: Env, name: string): Embedder {
  const who = agentIdentity(name);
  if (embedder.provider !== "openai" || !who) return embedder;
  const meter = embeddingMeter(env, who.tenantId, who.agentId);
  return {
    provider: embedder.provider,
    model: embedder.model,
    get dims() {
      return embedder.dims;
    },
    similarityThreshold: embedder.similarityThreshold,
    embed: (texts) => embedder.embed(texts, meter),
  };
}

/** A misconfigured embedder must not brick the agent: what needs no vectors keeps working, and a PATCH can fix it. */
export async function buildVectorStoreOrUnavailable(sql: SqlStorage, env: Env, config: AgentConfig, name: string): Promise<VectorStore> {
  try {
    return await buildVectorStore(sql, env, config, name);
  } catch (err) {
    if (!(err instanceof EmbedderConfigError)) throw err;
    return new VectorStore(sql, { message: err.message, settings: err.settings }, {
      makeIndex: (dims, exact) => new LocalVectorIndex(dims, exact),
      items: new SqlVectorItems(sql),
      now: () => Date.now(),
    });
  }
}
