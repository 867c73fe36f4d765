import type { AgentConfigPatch } from "../src/core/agent-config";
import { applyConfigPatch } from "../src/core/agent-config";
import type {
  CaseCreate,
  CasePatch,
  ExperienceCreate,
  ExperiencePatch,
  LibraryOperation,
  ListFilter,
  Provenance,
  RewardRequest,
} from "../src/core/memory-types";
import type { RetrieveRequest } from "../src/core/retrieval-types";
import type { AttemptCreate, EpisodeCreate, EpisodeEnd, SessionEnd } from "../src/core/episode-types";
import type { EpisodeDatasetQuery } from "../src/core/practice/dataset-types";
import { DomainError, outcome, versionNotReached, type Outcome } from "../src/core/errors";
import type { Keyed } from "./rpc-contract";
import { SharingDoor } from "./agent-memory/object/sharing-door";
import { exportLibrary, importLibrary, type LibraryExport } from "./agent-memory/library/transfer";
import type { PromptRequest } from "./agent-memory/retrieval/prompt";
import { resetRetriever, retrieverState } from "./agent-memory/retrieval/retriever-state";
import { ANONYMOUS_WRITER, type Asker } from "./agent-memory/retrieval/retrieval";
import { promotePractice, type PracticePromotionInput } from "./agent-memory/library/practice-promotion";
import { policyOf, type WriteAccess } from "./agent-memory/screening/access";
import { reembedBatch, type ReembedResult } from "./agent-memory/upkeep/reembed";
import { agentIncarnation, agentState, eraseRemoteVectors, setAgentState, vectorItemIds } from "./agent-memory/object/lifecycle";
import type { ReadModelVersion, SnapshotBase } from "./agent-memory/retrieval/read-model";
import { applyCounterBatch } from "./agent-memory/retrieval/retrieval-counts";
import { isRetrievalToken, type RankedRetrieval } from "../src/core/retrieval-token";
import type { CounterBatch } from "../src/core/retrieval-counts";

export type { WriteAccess } from "./agent-memory/screening/access";
export type { ReadModelAnswer, ReadModelVersion, SnapshotBase, Unpublishable } from "./agent-memory/retrieval/read-model";
/** A retrieval ranked at the edge, as the Worker hands it over to be recorded. */
export type EdgeRanked = Omit<RankedRetrieval, "id" | "at" | "retentionDays"> & { id: string };

/** A read asking for a library version this agent has not made is refused before it records anything (the Worker may ask again). */
function assertReached(library: { currentVersion(): number }, minVersion: number | undefined) {
  if (minVersion === undefined) return;
  const current = library.currentVersion();
  if (minVersion > current) throw versionNotReached(minVersion, current);
}

/**
 * One instance per tenant+agent (named `${tenantId}:${agentId}`). It is the single writer for
 * that agent's memories, so concurrent reward updates serialise here and never race. The Worker reaches
 * it only through src/platform/objects/agent-access.ts, by its contract (agent-memory/contract.ts). The
 * storage modules it serves from are built in agent-memory/object/startup.ts; each RPC method is a
 * thin door onto one of them (those of the review and sharing rooms in object/review-door.ts and
 * object/sharing-door.ts, which this class extends).
 */
export class AgentMemory extends SharingDoor {
  /** The agent was created (or created again): from now on its calls are served; a deleted agent starts empty. */
  async registerAgent(): Promise<Outcome<{ created: boolean }>> {
    return outcome(() =>
      this.ctx.blockConcurrencyWhile(async () => {
        const state = agentState(this.ctx.storage);
        if (state === "active") return { created: false };
        if (state === "deleted") {
          await this.ctx.storage.deleteAll();
          this.initialized = false;
        }
        this.initError = null;
        if (!this.initialized) await this.init();
        setAgentState(this.ctx.storage, "active", Date.now(), crypto.randomUUID());
        return { created: true };
      }),
    );
  }

  /**
   * Deletes the agent: its vectors leave Vectorize, its storage (memories, cases, episodes, jobs,
   * Q-values) is erased, and a marker stays so that every later call, whoever makes it, is refused
   * until the agent is created again. Repeating it repeats the erasure.
   */
  async deleteAgent(): Promise<Outcome<{ storageDeleted: true }>> {
    return outcome(async () => {
      this.generation++;
      setAgentState(this.ctx.storage, "deleted", Date.now());
      await eraseRemoteVectors(this.env.VECTORIZE, this.name, vectorItemIds(this.ctx.storage));
      await this.ctx.storage.deleteAlarm();
      await this.ctx.storage.deleteAll();
      this.initialized = false;
      setAgentState(this.ctx.storage, "deleted", Date.now());
      return { storageDeleted: true as const };
    });
  }

  /** The agent's incarnation (see agent-memory/object/lifecycle.ts): work begun for it carries it, and a later agent refuses that work. */
  async incarnation() {
    return this.rpc(() => agentIncarnation(this.ctx.storage));
  }

  async getConfig() {
    return this.rpc(() => this.config);
  }

  async patchConfig(patch: AgentConfigPatch) {
    return this.rpc(async () => {
      const result = applyConfigPatch(this.config, patch);
      if (!result.success) throw DomainError.unprocessable("Invalid configuration", result.error.issues);
      const embedderChanged = JSON.stringify(result.data.embedder) !== JSON.stringify(this.config.embedder);
      const previous = this.config;
      this.config = result.data;
      if (embedderChanged) {
        try {
          this.mem.vectors = await this.buildVectorStore();
        } catch (err) {
          this.config = previous;
          throw DomainError.unprocessable(err instanceof Error ? err.message : String(err), [
            { path: ["embedder"], message: "Cannot use this embedder here" },
          ]);
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

  /** Embeds the next batch of items lacking a vector of the current model. */
  async reembed({ model }: { model: string }): Promise<Outcome<ReembedResult>> {
    return outcome(async () => {
      if (agentState(this.ctx.storage) === "deleted" || !this.initialized) return { model, embedded: 0, remaining: 0, stale: true };
      this.ready();
      return reembedBatch(this.mem, this.rooms.library, this.rooms.cases, model);
    });
  }

  async createExperience({
    experience: input,
    author,
    provenance,
    idempotencyKey,
    access,
  }: Keyed<{ experience: ExperienceCreate; author: string; provenance?: Provenance | undefined; access?: WriteAccess | undefined }>) {
    return this.rpc(async () => {
      const { value: r, replayed } = await this.rooms.idempotency.run(idempotencyKey, "experience.create", input, (record) =>
        this.rooms.library.apply([{ op: "create", experience: input }], {
          reason: "create experience",
          author,
          provenance: provenance ?? null,
          record,
          screening: policyOf(access),
        }),
      );
      return { value: { version: r.version, experience: r.experiences[0]! }, replayed };
    });
  }

  async getExperience({ id }: { id: string }) {
    return this.rpc(() => this.rooms.library.get(id));
  }

  async listExperiences(filter: ListFilter) {
    return this.rpc(() => this.rooms.library.list(filter));
  }

  async patchExperience({
    id,
    patch,
    author,
    access,
  }: {
    id: string;
    patch: ExperiencePatch;
    author: string;
    access?: WriteAccess | undefined;
  }) {
    return this.rpc(async () => {
      const r = await this.rooms.library.apply([{ op: "update", id, patch }], {
        reason: "update experience",
        author,
        screening: policyOf(access),
      });
      return { version: r.version, experience: this.rooms.library.get(id) };
    });
  }

  async deleteExperience({ id, author, access }: { id: string; author: string; access?: WriteAccess | undefined }) {
    return this.rpc(async () => {
      const r = await this.rooms.library.apply([{ op: "delete", id }], {
        reason: "delete experience",
        author,
        screening: policyOf(access),
      });
      return { version: r.version, deleted: id };
    });
  }

  async applyLibrary({
    operations,
    reason,
    author,
    provenance,
    idempotencyKey,
    access,
  }: Keyed<{
    operations: LibraryOperation[];
    reason: string;
    author: string;
    provenance?: Provenance | undefined;
    access?: WriteAccess | undefined;
  }>) {
    return this.rpc(() =>
      this.rooms.idempotency.run(idempotencyKey, "library.batch", { operations, reason }, (record) =>
        this.rooms.library.apply(operations, { reason, author, provenance: provenance ?? null, record, screening: policyOf(access) }),
      ),
    );
  }

  async libraryVersions({ limit, before }: { limit: number; before?: number | undefined }) {
    return this.rpc(() => this.rooms.library.versions(limit, before));
  }

  async libraryVersion({ n }: { n: number }) {
    return this.rpc(() => this.rooms.library.versionDetail(n));
  }

  async evaluationLibrary({ n }: { n: number }) {
    return this.rpc(() => this.rooms.library.evaluationLibrary(n));
  }

  async libraryDiff({ n }: { n: number }) {
    return this.rpc(() => this.rooms.library.diff(n));
  }

  async rollback({ n, author, idempotencyKey }: Keyed<{ n: number; author: string }>) {
    return this.rpc(() =>
      this.rooms.idempotency.run(idempotencyKey, "library.rollback", { n }, (record) => this.rooms.library.rollback(n, author, record)),
    );
  }

  async exportLibrary() {
    return this.rpc(() => exportLibrary(this.mem, this.rooms.library));
  }

  async importLibrary({
    doc,
    mode,
    author,
    idempotencyKey,
    access,
  }: Keyed<{ doc: LibraryExport; mode: "merge" | "replace"; author: string; access?: WriteAccess | undefined }>) {
    return this.rpc(() =>
      this.rooms.idempotency.run(idempotencyKey, "library.import", { doc, mode }, (record) =>
        importLibrary(this.mem, this.rooms.library, doc, mode, author, record, access?.admin ?? false, access?.reviewed ?? false),
      ),
    );
  }

  /**
   * A practice run's result, applied once per run however often the run asks. Its texts passed the
   * run's own safety review (src/practice/plan-review.ts), so promotion runs the filter only.
   */
  async promotePractice(input: PracticePromotionInput) {
    return this.rpc(
      () =>
        this.sameIncarnation(input.incarnation, `practice run ${input.runId}`) ??
        this.rooms.idempotency.run(`practice:${input.runId}`, "practice.promote", { runId: input.runId }, (record) =>
          promotePractice(this.rooms.library.screening({ door: "practice", reviewed: true }), input, record),
        ),
    );
  }

  async createCase({ case: input, idempotencyKey, access }: Keyed<{ case: CaseCreate; access?: WriteAccess | undefined }>) {
    return this.rpc(() =>
      this.rooms.idempotency.run(idempotencyKey, "case.create", input, (record) =>
        this.rooms.cases.create(input, record, policyOf(access)),
      ),
    );
  }

  async getCase({ id }: { id: string }) {
    return this.rpc(() => this.rooms.cases.get(id));
  }

  async listCases(filter: ListFilter) {
    return this.rpc(() => this.rooms.cases.list(filter));
  }

  async patchCase({ id, patch, access }: { id: string; patch: CasePatch; access?: WriteAccess | undefined }) {
    return this.rpc(() => this.rooms.cases.patch(id, patch, policyOf(access)));
  }

  async deleteCase({ id, access }: { id: string; access?: WriteAccess | undefined }) {
    return this.rpc(async () => {
      await this.rooms.cases.delete(id, policyOf(access));
      return { deleted: id };
    });
  }

  /** A read-scoped asker changes nothing that later retrievals depend on, and no episode credits what it was shown. */
  async retrieve({ request: req, asker }: { request: RetrieveRequest; asker?: Asker | undefined }) {
    return this.rpc(() => {
      assertReached(this.rooms.library, req.minVersion);
      return this.rooms.retrieval.retrieve(req, asker);
    });
  }

  async prompt({ request: req, asker }: { request: PromptRequest & { minVersion?: number | undefined }; asker?: Asker | undefined }) {
    return this.rpc(() => {
      assertReached(this.rooms.library, req.minVersion);
      return this.rooms.prompts.build(req, asker ?? ANONYMOUS_WRITER);
    });
  }

  /**
   * `teacher`: the rewarding key, whose teaching of each memory is capped per hour. A token
   * `retrievalId` is verified first: a forged, foreign or expired one is refused and changes nothing.
   */
  async reward({ reward: req, idempotencyKey, teacher }: Keyed<{ reward: RewardRequest; teacher?: string | undefined }>) {
    return this.rpc(async () => {
      const { value, replayed: keyReplayed } = await this.rooms.idempotency.run(idempotencyKey, "reward", req, async (record) => {
        const token =
          req.retrievalId && isRetrievalToken(req.retrievalId) ? await this.rooms.retrieval.secrets.verify(req.retrievalId) : undefined;
        return this.rooms.utility.reward(req, record, teacher, token);
      });
      await this.rooms.trials.settle();
      // A second reward of the same retrieval replays the first even without an Idempotency-Key.
      const replayed = keyReplayed || value.replayed;
      if (!replayed && this.mem.reviewAvailable() && this.rooms.retrieval.usage.countPendingPhrases() > 0) await this.requestReview();
      return { ...value, replayed };
    });
  }

  /**
   * What a Worker holding `have` of this agent's read model needs to serve reads itself (see
   * agent-memory/read-model.ts): nothing, a delta, a snapshot of at most `maxBytes`, or why not.
   * Not a use of the agent: it leaves the upkeep's clock alone.
   */
  async readModel({ have, maxBytes, partBytes }: { have: ReadModelVersion | null; maxBytes: number; partBytes?: number }) {
    return this.rpc(() => this.rooms.readModel.answer(have, maxBytes, partBytes), { touch: false });
  }

  async snapshotPart({ base, offset, partBytes }: { base: SnapshotBase; offset: number; partBytes: number }) {
    return this.rpc(() => this.rooms.readModel.snapshotPart(base, offset, partBytes), { touch: false });
  }

  /**
   * Records a retrieval a Worker ranked whose token would be too long, as ranked (with its use
   * counters), and answers its `ret_…` id: the read is never ranked a second time.
   */
  async recordRetrieval({ retrieval: r }: { retrieval: EdgeRanked }) {
    const items = r.items.map(({ score, ...i }) => (score === null ? i : { ...i, score }));
    const record = { id: r.id, ...(r.trial ? { trial: r.trial } : {}) };
    return this.rpc(() => this.rooms.retrieval.record(r.query, r.phase, r.lambda, null, items, r.asker, r.queryVec ?? undefined, record));
  }

  /** Use counters of token retrievals, batched by a Worker (src/platform/edge/retrieval-counters.ts); each batch applies once. */
  async applyRetrievalCounts(batch: CounterBatch) {
    return this.rpc(() => applyCounterBatch(this.mem, this.rooms.subscriptions, batch), { touch: false });
  }

  /** What retrieval has learned from rewards: the re-ranker's state and the size of usage memory. */
  async getRetriever() {
    return this.rpc(() => retrieverState(this.rooms.retrieval, this.rooms.readModel));
  }

  /** Forgets what retrieval learned from rewards (re-ranker and usage memory); Q-values stay. */
  async resetRetriever() {
    return this.rpc(() => resetRetriever(this.rooms.retrieval, this.rooms.readModel, (fn) => this.ctx.storage.transactionSync(fn)));
  }

  async analytics(opts: { top: number; window: number; buckets: number }) {
    return this.rpc(() => this.rooms.utility.analytics(opts));
  }

  /** A sweep asked for through the jobs queue; its handler checks remedial practice itself. */
  async sweep({ at }: { at: number }) {
    return this.rpc(() => this.sweepAndPlan(at, false), { touch: false });
  }

  async createEpisode({ episode: input, idempotencyKey }: Keyed<{ episode: EpisodeCreate }>) {
    return this.rpc(() =>
      this.rooms.idempotency.run(idempotencyKey, "episode.create", input, async (record) =>
        this.ctx.storage.transactionSync(() => {
          const episode = this.rooms.episodes.create(input);
          record(episode);
          return episode;
        }),
      ),
    );
  }

  async addAttempt({ episodeId, attempt: input }: { episodeId: string; attempt: AttemptCreate }) {
    return this.rpc(() => this.rooms.episodes.addAttempt(episodeId, input));
  }

  async endEpisode({ episodeId, end: input }: { episodeId: string; end: EpisodeEnd }) {
    return this.rpc(async () => {
      const episode = await this.rooms.episodes.end(episodeId, input);
      await this.rooms.trials.settle();
      return episode;
    });
  }

  async getEpisode({ episodeId }: { episodeId: string }) {
    return this.rpc(() => this.rooms.episodes.get(episodeId));
  }

  async episodeRetrievals({ episodeId }: { episodeId: string }) {
    return this.rpc(() => this.rooms.episodes.retrievals(episodeId));
  }

  async listEpisodes({ limit, cursor, status }: { limit: number; cursor?: string | undefined; status?: "open" | "ended" | undefined }) {
    return this.rpc(() => this.rooms.episodes.list(limit, cursor, status));
  }

  async episodesForDataset(query: EpisodeDatasetQuery) {
    return this.rpc(() => this.rooms.episodes.forDataset(query));
  }

  async ingestSession(session: SessionEnd) {
    return this.rpc(async () => {
      const ingested = await this.rooms.episodes.ingestSession(session);
      await this.rooms.trials.settle();
      return ingested;
    });
  }

  async getJob({ jobId }: { jobId: string }) {
    return this.rpc(() => {
      const job = this.rooms.jobs.get(jobId);
      if (!job) throw DomainError.notFound(`Job '${jobId}' does not exist.`);
      return job;
    });
  }

  async episodesForDatasetScreened(query: EpisodeDatasetQuery) {
    return this.rpc(() => this.rooms.episodes.screenedForDataset(query));
  }

  /** Erases everything this agent remembered; the next call starts from an empty schema. */
  async destroy(): Promise<Outcome<{ storageDeleted: true }>> {
    return outcome(async () => {
      await this.ctx.storage.deleteAlarm();
      await this.ctx.storage.deleteAll();
      this.initError = null;
      await this.init();
      return { storageDeleted: true as const };
    });
  }
}
