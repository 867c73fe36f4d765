import type { Env } from "../../../src/env";
import { AgentConfigSchema, defaultAgentConfig, type AgentConfig } from "../../../src/core/agent-config";
import { sha256Hex } from "../../../src/core/api-key";
import { chooseVectorIndex } from "../../../src/core/vector-index-choice";
import { createEmbedder, EmbedderConfigError } from "../../../src/adapters/embedder-factory";
import type { Embedder } from "../../../src/adapters/embedder";
import { meteredEmbedder } from "../../../src/llm";
import { variables } from "../../../src/config";
import { agentIdentity, agentIncarnation } from "./lifecycle";
import { LocalVectorIndex } from "../../../src/adapters/vector-indexes/local";
import { VectorizeVectorIndex } from "../../../src/adapters/vector-indexes/vectorize";
import type { MemoryContext } from "../storage/context";
import { VectorStore } from "../vectors/store";
import { SqlVectorItems } from "../vectors/items";
import { Library } from "../library/library";
import { Cases } from "../episodes/cases";
import { Retrieval } from "../retrieval/retrieval";
import type { CandidateInfo } from "../../../src/core/ranking/candidates";
import { PromptAssembly } from "../retrieval/prompt";
import { Utility } from "../rewards/utility";
import { rewardedRetrieval } from "../rewards/reward-learning";
import { ProbationTrials } from "../rewards/probation-trials";
import { Jobs } from "../episodes/jobs";
import { Episodes } from "../episodes/episodes";
import { LiveLessons } from "../library/live-lessons";
import { IdempotencyStore } from "../storage/idempotency";
import { Quarantine } from "../screening/quarantine";
import { ReadModel } from "../retrieval/read-model";
import { Subscriptions, type LibraryPort } from "../sharing/subscriptions";

/** The agent's storage modules, wired to one context: what the AgentMemory DO serves its calls from. */
export interface Stores {
  library: Library;
  cases: Cases;
  retrieval: Retrieval;
  prompts: PromptAssembly;
  utility: Utility;
  trials: ProbationTrials;
  jobs: Jobs;
  episodes: Episodes;
  lessons: LiveLessons;
  idempotency: IdempotencyStore;
  quarantine: Quarantine;
  readModel: ReadModel;
  subscriptions: Subscriptions<CandidateInfo>;
}

export function openStores(
  mem: MemoryContext,
  enqueueExtraction: (episodeId: string, jobId: string) => Promise<void>,
  libraries: LibraryPort<CandidateInfo>,
  onLibraryFailure: (libraryId: string, err: unknown) => void,
): Stores {
  const library = new Library(mem);
  const cases = new Cases(mem);
  const retrieval = new Retrieval(mem, library);
  const subscriptions = new Subscriptions(mem, libraries);
  retrieval.shared = subscriptions;
  retrieval.onSharedFailure = onLibraryFailure;
  const trials = new ProbationTrials(mem, library);
  const utility = new Utility(mem, library, rewardedRetrieval(mem, retrieval), trials);
  const jobs = new Jobs(mem);
  const idempotency = new IdempotencyStore(mem);
  return {
    library,
    cases,
    retrieval,
    prompts: new PromptAssembly(mem, library, retrieval),
    utility,
    trials,
    jobs,
    episodes: new Episodes(mem, cases, utility, jobs, idempotency, enqueueExtraction),
    lessons: new LiveLessons(mem, library, jobs),
    idempotency,
    quarantine: new Quarantine(mem, library, cases),
    readModel: new ReadModel(
      mem,
      retrieval,
      () => agentIncarnation(mem.storage),
      () => retrieval.secrets.signing(),
      () => subscriptions.list(),
    ),
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
  const { VECTOR_INDEX, LOCAL_INDEX_LIMIT } = variables(env);
  const choice = chooseVectorIndex({ setting: VECTOR_INDEX, limit: LOCAL_INDEX_LIMIT, hasBinding: Boolean(env.VECTORIZE), ...facts });
  const binding = choice === "vectorize" ? env.VECTORIZE : undefined;
  // Namespaces are capped at 64 bytes and must separate vector spaces, so hash name + model.
  const namespace = binding ? `ns_${(await sha256Hex(`${name}|${embedder.model}`)).slice(0, 40)}` : "";
  const makeIndex = (dims: number) =>
    binding ? new VectorizeVectorIndex(binding, namespace, { dims, now, idScope: name }) : new LocalVectorIndex(dims);
  return new VectorStore(sql, embedder, {
    makeIndex,
    items: new SqlVectorItems(sql),
    now,
    movingToRemote: binding !== undefined && VECTOR_INDEX === "auto" && !facts.switched,
  });
}

/** The agent's embedder, metered in its tenant's name (see meteredEmbedder); an object without an agent's name is not metered. */
function metered(embedder: Embedder, env: Env, name: string): Embedder {
  const who = agentIdentity(name);
  return who ? meteredEmbedder(embedder, env, who.tenantId, who.agentId) : embedder;
}

/** A misconfigured embedder must not brick the agent: what needs no vectors keeps working, and a PATCH can fix it. */
export async function buildVectorStoreOrUnavailable(sql: SqlStorage, env: Env, config: AgentConfig, name: string): Promise<VectorStore> {
  try {
    return await buildVectorStore(sql, env, config, name);
  } catch (err) {
    if (!(err instanceof EmbedderConfigError)) throw err;
    return new VectorStore(
      sql,
      { message: err.message, settings: err.settings },
      {
        makeIndex: (dims) => new LocalVectorIndex(dims),
        items: new SqlVectorItems(sql),
        now: () => Date.now(),
      },
    );
  }
}
