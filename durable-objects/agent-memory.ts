import { DurableObject } from "cloudflare:workers";
import type { Env } from "../src/env";
import {
  AgentConfigSchema,
  applyConfigPatch,
  defaultAgentConfig,
  type AgentConfig,
  type AgentConfigPatch,
} from "../src/core/agent-config";
import type {
  CaseCreate,
  CasePatch,
  ExperienceCreate,
  ExperiencePatch,
  LibraryOperation,
  ListFilter,
  Provenance,
  RetrieveRequest,
  RewardRequest,
} from "../src/core/memory-types";
import { sha256Hex } from "../src/core/api-key";
import { createEmbedder, EmbedderConfigError } from "../src/adapters/embedder-factory";
import { LocalVectorIndex } from "../src/adapters/vector-indexes/local";
import { VectorizeVectorIndex } from "../src/adapters/vector-indexes/vectorize";
import type { ExactVectors } from "../src/core/int8-matrix";
import { chooseVectorIndex } from "../src/core/vector-index-choice";
import { migrateSchema } from "./schema-version";
import { AGENT_MEMORY_SCHEMA } from "./agent-memory/schema";
import { MemoryError, outcome } from "./memory-error";
import type { MemoryContext } from "./agent-memory/context";
import { VectorStore } from "./agent-memory/vector-store";
import { SqlVectorItems } from "./agent-memory/vector-items";
import { packPendingCodes } from "./agent-memory/vector-pages";
import { Library } from "./agent-memory/library";
import { exportLibrary, importLibrary, type LibraryExport } from "./agent-memory/library-transfer";
import { Cases } from "./agent-memory/cases";
import { Retrieval } from "./agent-memory/retrieval";
import { anyLessonWithoutWhen, applyWhen, lessonsWithoutWhen } from "./agent-memory/when-backfill";
import { PromptAssembly, type PromptRequest } from "./agent-memory/prompt";
import { Utility } from "./agent-memory/utility";
import { resetRetriever, retrieverState } from "./agent-memory/retriever-state";
import { pruneLogs, sweep } from "./agent-memory/forgetting";
import { experienceEmbedText } from "./agent-memory/rows";
import { Episodes } from "./agent-memory/episodes";
import { Jobs } from "./agent-memory/jobs";
import { LiveLessons } from "./agent-memory/live-lessons";
import { IdempotencyStore } from "./agent-memory/idempotency";
import { promotePractice, type PracticePromotionInput } from "./agent-memory/practice-promotion";
import { Quarantine, type ReviewVerdict } from "./agent-memory/quarantine";
import type { AdmissionPolicy } from "./agent-memory/admission";
import { llmVariablesPresent } from "../src/llm/settings";
import type { AttemptCreate, EpisodeCreate, EpisodeEnd, Job, SessionEnd } from "../src/core/episode-types";
import type { LiveDecision, LiveDecisionContext, LiveInsight } from "../src/core/live-lesson";
import type { EpisodeDatasetQuery } from "../src/core/practice/dataset-types";
import type { MemoryKind } from "../src/core/memory-types";

/** How a client's write came in: its door, and whether its key is admin-scoped. */
export interface WriteAccess {
  door?: "api" | "mcp";
  admin?: boolean;
  /** The door had the text safety-reviewed (and found safe) before writing it; the filter still applies. */
  reviewed?: boolean;
}
const policyOf = (access: WriteAccess | undefined, door: AdmissionPolicy["door"] = access?.door ?? "api"): AdmissionPolicy => ({
  door,
  admin: access?.admin ?? false,
  ...(access?.reviewed ? { reviewed: true } : {}),
});
import { agentState, eraseRemoteVectors, existsInControlPlane, isBlank, setAgentState, vectorItemIds } from "./agent-memory/lifecycle";

const REEMBED_BATCH = 90;
const DEFAULT_EPISODE_TTL_MINUTES = 60;

/**
 * One instance per tenant+agent (named `${tenantId}:${agentId}`). It is the single writer for
 * that agent's memories, so concurrent reward updates serialise here and never race. Routes reach
 * it only through src/services/agent-memory.ts.
 */
export class AgentMemory extends DurableObject<Env> {
  private config: AgentConfig = defaultAgentConfig();
  private initError: unknown = null;
  private mem!: MemoryContext;
  private library!: Library;
  private cases!: Cases;
  private retrieval!: Retrieval;
  private prompts!: PromptAssembly;
  private utility!: Utility;
  private jobs!: Jobs;
  private episodes!: Episodes;
  private lessons!: LiveLessons;
  private idempotency!: IdempotencyStore;
  private quarantine!: Quarantine;
  /** Whether `init` has run on the current storage; an unknown or deleted agent's object never runs it. */
  private initialized = false;
  /** Bumped when the agent is deleted, so a call that was in flight then answers "no such agent". */
  private generation = 0;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      try {
        if (agentState(ctx.storage) === "deleted" || isBlank(ctx.storage)) return;
        await this.init();
      } catch (err) {
        // Kept and re-thrown per call rather than thrown here, so a failed init does not leave the input gate broken.
        this.initError = err;
      }
    });
  }

  private async init() {
    migrateSchema(this.ctx.storage, AGENT_MEMORY_SCHEMA);
    packPendingCodes(this.ctx.storage);
    this.config = this.loadConfig();
    const vectors = await this.buildVectorStoreOrUnavailable();
    this.mem = {
      storage: this.ctx.storage,
      sql: this.ctx.storage.sql,
      now: () => Date.now(),
      newId: (prefix) => `${prefix}_${crypto.randomUUID().replace(/-/g, "").slice(0, 20)}`,
      config: () => this.config,
      vectors,
      reviewAvailable: () => llmVariablesPresent(this.env),
      requestReview: () => this.requestReview(),
    };
    this.library = new Library(this.mem);
    this.cases = new Cases(this.mem);
    this.retrieval = new Retrieval(this.mem, this.library);
    this.prompts = new PromptAssembly(this.mem, this.library, this.retrieval);
    this.utility = new Utility(this.mem, this.library, this.retrieval);
    this.jobs = new Jobs(this.mem);
    this.idempotency = new IdempotencyStore(this.mem);
    this.episodes = new Episodes(this.mem, this.cases, this.utility, this.jobs, this.idempotency, (episodeId, jobId) => this.enqueueExtraction(episodeId, jobId));
    this.lessons = new LiveLessons(this.mem, this.library, this.jobs);
    this.quarantine = new Quarantine(this.mem, this.library, this.cases);
    await vectors.load();
    // A deployment whose EMBEDDER changed (the default became `semantic`) finds its agents' vectors in
    // the old space; they re-embed in the background, matched lexically meanwhile. Queueing is best
    // effort: the next start or embedder change asks again, and the agent must start regardless.
    if (vectors.embedder) await this.scheduleReembed().catch(() => undefined);
    this.initialized = true;
  }

  private ready() {
    if (this.initError) throw this.initError;
  }

  /** Every RPC method runs through here: init errors surface, domain errors become values. */
  private rpc<T>(fn: () => T | Promise<T>) {
    return outcome(async () => {
      await this.requireAgent();
      this.ready();
      const generation = this.generation;
      try {
        return await fn();
      } finally {
        if (generation !== this.generation) this.refuseDeleted();
      }
    });
  }

  private refuseDeleted(): never {
    throw MemoryError.notFound(`Agent '${this.identity()?.agentId ?? "?"}' does not exist.`);
  }

  /** Refuses every call for an agent that does not exist (never created, or deleted). */
  private async requireAgent(): Promise<void> {
    const state = agentState(this.ctx.storage);
    if (state === "active") return;
    const who = this.identity();
    if (state === "deleted" || !who || !(await existsInControlPlane(this.env.DB, who.tenantId, who.agentId))) this.refuseDeleted();
    await this.ctx.blockConcurrencyWhile(async () => {
      if (!this.initialized) await this.init();
      setAgentState(this.ctx.storage, "active", Date.now());
    });
  }

  /** The agent was created (or created again): from now on its calls are served; a deleted agent starts empty. */
  async registerAgent(): Promise<{ created: boolean }> {
    return this.ctx.blockConcurrencyWhile(async () => {
      const state = agentState(this.ctx.storage);
      if (state === "active") return { created: false };
      if (state === "deleted") {
        await this.ctx.storage.deleteAll();
        this.initialized = false;
      }
      this.initError = null;
      if (!this.initialized) await this.init();
      setAgentState(this.ctx.storage, "active", Date.now());
      return { created: true };
    });
  }

  /**
   * Deletes the agent: its vectors leave Vectorize, its storage (memories, cases, episodes, jobs,
   * Q-values) is erased, and a marker stays so that every later call, whoever makes it, is refused
   * until the agent is created again. Repeating it repeats the erasure.
   */
  async deleteAgent(): Promise<{ storageDeleted: true }> {
    this.generation++;
    setAgentState(this.ctx.storage, "deleted", Date.now());
    await eraseRemoteVectors(this.env.VECTORIZE, this.ctx.id.name ?? this.ctx.id.toString(), vectorItemIds(this.ctx.storage));
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.initialized = false;
    setAgentState(this.ctx.storage, "deleted", Date.now());
    return { storageDeleted: true };
  }

  private identity(): { tenantId: string; agentId: string } | null {
    const name = this.ctx.id.name;
    const at = name?.indexOf(":") ?? -1;
    return name && at > 0 ? { tenantId: name.slice(0, at), agentId: name.slice(at + 1) } : null;
  }

  private async buildVectorStore(): Promise<VectorStore> {
    const embedder = createEmbedder(this.env, this.config.embedder ?? undefined);
    const now = () => Date.now();
    const name = this.ctx.id.name ?? this.ctx.id.toString();
    const facts = VectorStore.facts(this.ctx.storage.sql, embedder.model);
    const choice = chooseVectorIndex({ setting: this.env.VECTOR_INDEX, limit: this.env.LOCAL_INDEX_LIMIT, hasBinding: Boolean(this.env.VECTORIZE), ...facts });
    const binding = choice === "vectorize" ? this.env.VECTORIZE : undefined;
    // Namespaces are capped at 64 bytes and must separate vector spaces, so hash name + model.
    const namespace = binding ? `ns_${(await sha256Hex(`${name}|${embedder.model}`)).slice(0, 40)}` : "";
    const makeIndex = (dims: number, exact: ExactVectors) =>
      binding ? new VectorizeVectorIndex(binding, namespace, { dims, now, idScope: name }) : new LocalVectorIndex(dims, exact);
    return new VectorStore(this.ctx.storage.sql, embedder, {
      makeIndex,
      items: new SqlVectorItems(this.ctx.storage.sql),
      now,
      movingToRemote: binding !== undefined && this.env.VECTOR_INDEX === "auto" && !facts.switched,
    });
  }

  /** A misconfigured embedder must not brick the agent: what needs no vectors keeps working, and a PATCH can fix it. */
  private async buildVectorStoreOrUnavailable(): Promise<VectorStore> {
    try {
      return await this.buildVectorStore();
    } catch (err) {
      if (!(err instanceof EmbedderConfigError)) throw err;
      return new VectorStore(this.ctx.storage.sql, { message: err.message, settings: err.settings }, {
        makeIndex: (dims, exact) => new LocalVectorIndex(dims, exact),
        items: new SqlVectorItems(this.ctx.storage.sql),
        now: () => Date.now(),
      });
    }
  }

  private loadConfig(): AgentConfig {
    const row = this.ctx.storage.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'config'").toArray()[0];
    if (!row) return defaultAgentConfig();
    const parsed = AgentConfigSchema.safeParse(JSON.parse(row.value));
    return parsed.success ? parsed.data : defaultAgentConfig();
  }

  async getConfig() {
    return this.rpc(() => this.config);
  }

  async patchConfig(patch: AgentConfigPatch) {
    return this.rpc(async () => {
      const result = applyConfigPatch(this.config, patch);
      if (!result.success) throw MemoryError.invalid("Invalid configuration", result.error.issues);
      const embedderChanged = JSON.stringify(result.data.embedder) !== JSON.stringify(this.config.embedder);
      const previous = this.config;
      this.config = result.data;
      if (embedderChanged) {
        try {
          this.mem.vectors = await this.buildVectorStore();
        } catch (err) {
          this.config = previous;
          throw MemoryError.invalid(err instanceof Error ? err.message : String(err), [{ path: ["embedder"], message: "Cannot use this embedder here" }]);
        }
      }
      this.ctx.storage.sql.exec(
        "INSERT INTO meta (key, value) VALUES ('config', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        JSON.stringify(result.data),
      );
      if (embedderChanged) {
        await this.mem.vectors.load();
        await this.scheduleReembed();
      }
      return this.config;
    });
  }

  private async enqueueExtraction(episodeId: string, jobId: string) {
    const who = this.identity();
    if (!who) throw new Error("AgentMemory has no name; it must be addressed with getByName(`${tenantId}:${agentId}`)");
    await this.env.JOBS.send({ type: "live.extract", ...who, episodeId, jobId });
  }

  /** Queues an agent-wide background job. Best effort: the sweep asks again while there is work. */
  private async requestJob(type: "lesson.when") {
    const who = this.identity();
    if (who) await this.env.JOBS.send({ type, ...who }).catch(() => undefined);
  }

  /** Queues the safety review of pending entries. Best effort: the sweep asks again while any wait. */
  private async requestReview() {
    const who = this.identity();
    if (!who) return;
    await this.env.JOBS.send({ type: "admission.review", ...who }).catch(() => undefined);
  }

  /** Queues background re-embedding; until it finishes, un-embedded items are matched lexically. */
  private async scheduleReembed() {
    const who = this.identity();
    if (!who || !this.hasMissingVectors()) return;
    await this.env.JOBS.send({ type: "agent.reembed", ...who, model: this.mem.vectors.model });
  }

  private hasMissingVectors() {
    return this.mem.vectors.missingIds("experience").length + this.mem.vectors.missingIds("case").length > 0;
  }

  /** Embeds the next batch of items lacking a vector of the current model. */
  async reembed(model: string): Promise<{ model: string; embedded: number; remaining: number; stale: boolean }> {
    if (agentState(this.ctx.storage) === "deleted" || !this.initialized) return { model, embedded: 0, remaining: 0, stale: true };
    this.ready();
    const vectors = this.mem.vectors;
    if (model !== vectors.model) return { model: vectors.model, embedded: 0, remaining: 0, stale: true };
    const exp = vectors.missingIds("experience").slice(0, REEMBED_BATCH);
    const cas = vectors.missingIds("case").slice(0, REEMBED_BATCH - exp.length);
    const texts: { id: string; kind: "experience" | "case"; text: string }[] = [];
    for (const id of exp) {
      const row = this.library.row(id);
      if (row) texts.push({ id, kind: "experience", text: experienceEmbedText({ text: row.text, pattern: row.pattern, keywords: JSON.parse(row.keywords) }) });
    }
    for (const id of cas) {
      const row = this.cases.row(id);
      if (row) texts.push({ id, kind: "case", text: row.task });
    }
    const vecs = await vectors.embed(texts.map((t) => t.text));
    if (vectors !== this.mem.vectors) return { model: this.mem.vectors.model, embedded: 0, remaining: 0, stale: true };
    this.ctx.storage.transactionSync(() => texts.forEach((t, i) => vectors.writeSync(t.id, t.kind, vecs[i]!)));
    await vectors.publish(texts.map((t) => t.id), []);
    const remaining = vectors.missingIds("experience").length + vectors.missingIds("case").length;
    return { model, embedded: texts.length, remaining, stale: false };
  }

  async createExperience(input: ExperienceCreate, author: string, provenance?: Provenance, idempotencyKey?: string, access?: WriteAccess) {
    return this.rpc(async () => {
      const { value: r, replayed } = await this.idempotency.run(idempotencyKey, "experience.create", input, (record) =>
        this.library.apply([{ op: "create", experience: input }], { reason: "create experience", author, provenance: provenance ?? null, record, admission: policyOf(access) }),
      );
      return { value: { version: r.version, experience: r.experiences[0]! }, replayed };
    });
  }

  async getExperience(id: string) {
    return this.rpc(() => this.library.get(id));
  }

  async listExperiences(filter: ListFilter) {
    return this.rpc(() => this.library.list(filter));
  }

  async patchExperience(id: string, patch: ExperiencePatch, author: string, access?: WriteAccess) {
    return this.rpc(async () => {
      const r = await this.library.apply([{ op: "update", id, patch }], { reason: "update experience", author, admission: policyOf(access) });
      return { version: r.version, experience: this.library.get(id) };
    });
  }

  async deleteExperience(id: string, author: string, access?: WriteAccess) {
    return this.rpc(async () => {
      const r = await this.library.apply([{ op: "delete", id }], { reason: "delete experience", author, admission: policyOf(access) });
      return { version: r.version, deleted: id };
    });
  }

  async applyLibrary(operations: LibraryOperation[], reason: string, author: string, provenance?: Provenance, idempotencyKey?: string, access?: WriteAccess) {
    return this.rpc(() =>
      this.idempotency.run(idempotencyKey, "library.batch", { operations, reason }, (record) =>
        this.library.apply(operations, { reason, author, provenance: provenance ?? null, record, admission: policyOf(access) }),
      ),
    );
  }

  async libraryVersions(limit: number, before?: number) {
    return this.rpc(() => this.library.versions(limit, before));
  }

  async libraryVersion(n: number) {
    return this.rpc(() => this.library.versionDetail(n));
  }

  async libraryDiff(n: number) {
    return this.rpc(() => this.library.diff(n));
  }

  async rollback(n: number, author: string, idempotencyKey?: string) {
    return this.rpc(() => this.idempotency.run(idempotencyKey, "library.rollback", { n }, (record) => this.library.rollback(n, author, record)));
  }

  async exportLibrary() {
    return this.rpc(() => exportLibrary(this.mem, this.library));
  }

  async importLibrary(doc: LibraryExport, mode: "merge" | "replace", author: string, idempotencyKey?: string, access?: WriteAccess) {
    return this.rpc(() =>
      this.idempotency.run(idempotencyKey, "library.import", { doc, mode }, (record) =>
        importLibrary(this.mem, this.library, doc, mode, author, record, access?.admin ?? false, access?.reviewed ?? false),
      ),
    );
  }

  /**
   * A practice run's result, applied once per run however often the run asks. Its texts passed the
   * run's own safety review (src/practice/plan-review.ts), so promotion runs the filter only.
   */
  async promotePractice(input: PracticePromotionInput) {
    return this.rpc(() =>
      this.idempotency.run(`practice:${input.runId}`, "practice.promote", { runId: input.runId }, (record) =>
        promotePractice(this.library.admitting({ door: "practice", reviewed: true }), input, record),
      ),
    );
  }

  async createCase(input: CaseCreate, idempotencyKey?: string, access?: WriteAccess) {
    return this.rpc(() => this.idempotency.run(idempotencyKey, "case.create", input, (record) => this.cases.create(input, record, policyOf(access))));
  }

  async getCase(id: string) {
    return this.rpc(() => this.cases.get(id));
  }

  async listCases(filter: ListFilter) {
    return this.rpc(() => this.cases.list(filter));
  }

  async patchCase(id: string, patch: CasePatch, access?: WriteAccess) {
    return this.rpc(() => this.cases.patch(id, patch, policyOf(access)));
  }

  async deleteCase(id: string, access?: WriteAccess) {
    return this.rpc(async () => {
      await this.cases.delete(id, policyOf(access));
      return { deleted: id };
    });
  }

  /** `readOnly` for a read-scoped key: nothing that later retrievals depend on changes. */
  async retrieve(req: RetrieveRequest, opts?: { readOnly?: boolean }) {
    return this.rpc(() => this.retrieval.retrieve(req, opts?.readOnly ?? false));
  }

  async prompt(req: PromptRequest) {
    return this.rpc(() => this.prompts.build(req));
  }

  async reward(req: RewardRequest, idempotencyKey?: string) {
    return this.rpc(async () => {
      const { value, replayed } = await this.idempotency.run(idempotencyKey, "reward", req, async (record) => this.utility.reward(req, record));
      if (!replayed && this.mem.reviewAvailable() && this.retrieval.usage.countPendingPhrases() > 0) await this.requestReview();
      return { ...value, replayed };
    });
  }

  /** What retrieval has learned from rewards: the re-ranker's state and the size of usage memory. */
  async getRetriever() {
    return this.rpc(() => retrieverState(this.retrieval));
  }

  /** Forgets what retrieval learned from rewards (re-ranker and usage memory); Q-values stay. */
  async resetRetriever() {
    return this.rpc(() => resetRetriever(this.retrieval, (fn) => this.ctx.storage.transactionSync(fn)));
  }

  async analytics(opts: { top: number; window: number; buckets: number }) {
    return this.rpc(() => this.utility.analytics(opts));
  }

  async sweep(at: number) {
    return this.rpc(async () => {
      const ttlMinutes = Number(this.env.EPISODE_TTL_MINUTES ?? DEFAULT_EPISODE_TTL_MINUTES);
      const episodes = await this.episodes.endStale(at, ttlMinutes * 60_000);
      await this.mem.vectors.republish();
      if (this.mem.reviewAvailable() && this.quarantine.countPending() + this.retrieval.usage.countPendingPhrases() > 0) await this.requestReview();
      if (this.mem.reviewAvailable() && anyLessonWithoutWhen(this.mem)) await this.requestJob("lesson.when");
      return {
        ...(await sweep(this.mem, this.library, at)),
        episodesTimedOut: episodes.timedOut,
        episodesFailed: episodes.failed,
        pruned: await pruneLogs(this.mem, this.cases, at),
      };
    });
  }

  async createEpisode(input: EpisodeCreate, idempotencyKey?: string) {
    return this.rpc(() =>
      this.idempotency.run(idempotencyKey, "episode.create", input, async (record) =>
        this.ctx.storage.transactionSync(() => {
          const episode = this.episodes.create(input);
          record(episode);
          return episode;
        }),
      ),
    );
  }

  async addAttempt(episodeId: string, input: AttemptCreate) {
    return this.rpc(() => this.episodes.addAttempt(episodeId, input));
  }

  async endEpisode(episodeId: string, input: EpisodeEnd) {
    return this.rpc(() => this.episodes.end(episodeId, input));
  }

  async getEpisode(episodeId: string) {
    return this.rpc(() => this.episodes.get(episodeId));
  }

  async listEpisodes(limit: number, cursor?: string, status?: "open" | "ended") {
    return this.rpc(() => this.episodes.list(limit, cursor, status));
  }

  async episodesForDataset(query: EpisodeDatasetQuery) {
    return this.rpc(() => this.episodes.forDataset(query));
  }

  async ingestSession(session: SessionEnd) {
    return this.rpc(() => this.episodes.ingestSession(session));
  }

  async getJob(jobId: string) {
    return this.rpc(() => {
      const job = this.jobs.get(jobId);
      if (!job) throw MemoryError.notFound(`Job '${jobId}' does not exist.`);
      return job;
    });
  }

  async episodesForDatasetScreened(query: EpisodeDatasetQuery) {
    return this.rpc(() => this.episodes.screenedForDataset(query));
  }

  async listQuarantine(opts: { kind?: MemoryKind; status?: "quarantined" | "pending"; limit: number; cursor?: string }) {
    return this.rpc(() => this.quarantine.list(opts));
  }

  async getQuarantined(id: string) {
    return this.rpc(() => this.quarantine.get(id));
  }

  /** Callers check that the key is admin-scoped. */
  async releaseQuarantined(id: string, author: string) {
    return this.rpc(() => this.quarantine.release(id, author));
  }

  /** Callers check that the key is admin-scoped. */
  async deleteQuarantined(id: string, author: string) {
    return this.rpc(() => this.quarantine.remove(id, author));
  }

  /** The next pending entries for the safety reviewer (src/learning/admission-review.ts). */
  async pendingReviews(limit: number) {
    return this.rpc(() => ({ items: this.quarantine.pending(limit), remaining: this.quarantine.countPending() }));
  }

  async applyReviews(verdicts: ReviewVerdict[]) {
    return this.rpc(() => this.quarantine.applyReviews(verdicts));
  }

  /** Lessons the background job may write a `when` for (src/learning/when-writer.ts). */
  async lessonsWithoutWhen(limit: number) {
    return this.rpc(() => lessonsWithoutWhen(this.mem, limit));
  }

  async applyWhen(written: { id: string; text: string; when: string }[], asked: { id: string; text: string }[]) {
    return this.rpc(() => applyWhen(this.mem, this.library, written, asked));
  }

  /** Learned phrases waiting for the same safety review (src/learning/admission-review.ts). */
  async pendingPhraseReviews(limit: number) {
    return this.rpc(() => ({ items: this.retrieval.usage.pendingPhrases(limit), remaining: this.retrieval.usage.countPendingPhrases() }));
  }

  async applyPhraseReviews(verdicts: { itemId: string; text: string; safe: boolean }[]) {
    return this.rpc(() => this.retrieval.usage.applyPhraseReviews(verdicts));
  }

  async listJobs(limit: number, status?: string) {
    return this.rpc(() => this.jobs.list(limit, status));
  }

  /** Marks a live-extraction job running and hands the worker what the LLM needs. */
  async startLiveJob(jobId: string, episodeId: string) {
    return this.rpc(() => {
      const job = this.jobs.get(jobId) ?? this.jobs.ensure(jobId, "live.extract", episodeId).job;
      if (job.status === "done" || job.status === "skipped") return { job, input: null };
      return { job: this.jobs.update(jobId, { status: "running", attempt: true })!, input: this.episodes.extractionInput(episodeId) };
    });
  }

  async finishJob(jobId: string, status: Job["status"], reason: string, result?: Job["result"]) {
    return this.rpc(() => this.jobs.update(jobId, { status, reason, ...(result !== undefined ? { result } : {}) }));
  }

  async similarExperiences(lesson: { id?: string; text: string; pattern?: string | null; keywords?: string[] }, k: number) {
    return this.rpc(() => this.lessons.similar(lesson, k));
  }

  async applyLiveLesson(jobId: string, episodeId: string, candidate: LiveInsight, decision: LiveDecision, context: LiveDecisionContext) {
    return this.rpc(() => this.lessons.apply(jobId, episodeId, candidate, decision, context));
  }

  /** Erases everything this agent remembered; the next call starts from an empty schema. */
  async destroy(): Promise<{ storageDeleted: true }> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.initError = null;
    await this.init();
    return { storageDeleted: true };
  }
}
