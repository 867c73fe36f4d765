import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../../src/env";
import { defaultAgentConfig, type AgentConfig } from "../../../src/core/agent-config";
import { llmVariablesPresent } from "../../../src/llm/settings";
import { createLogger } from "../../../src/core/logger";
import { migrateSchema } from "../../schema-version";
import { DomainError, outcome } from "../../../src/core/errors";
import { AGENT_MEMORY_SCHEMA } from "../storage/schema";
import type { AgentEvent, MemoryContext } from "../storage/context";
import { eventMessages } from "../../../src/core/events";
import type { VectorStore } from "../vectors/store";
import { packPendingCodes } from "../vectors/pages";
import { buildVectorStore, buildVectorStoreOrUnavailable, loadConfig, openStores, type Stores } from "./startup";
import { missingVectorCount } from "../upkeep/reembed";
import { libraryPort } from "../sharing/library-port";
import { agentIdentity, agentIncarnation, agentState, existsInControlPlane, isBlank, setAgentState } from "./lifecycle";
import { ACTIVE_SWEEP_MS, nextSweepDue, remedialCheckAsked, remedialCheckDue, runSweep, UpkeepAlarm } from "../upkeep/maintenance";
import { variables } from "../../../src/config";

/**
 * The AgentMemory object's machinery, apart from its RPC doors (durable-objects/agent-memory.ts):
 * start-up (schema, config, vector index, storage modules), the guard every call passes (the agent
 * exists, init succeeded, a delete during the call is noticed), its alarm (upkeep: the sweep and a
 * Vectorize backfill), and the queue messages it sends.
 */
export abstract class AgentMemoryBase extends DurableObject<Env> {
  protected config: AgentConfig = defaultAgentConfig();
  protected initError: unknown = null;
  protected mem!: MemoryContext;
  protected rooms!: Stores;
  protected upkeep!: UpkeepAlarm;
  /** Whether `init` has run on the current storage; an unknown or deleted agent's object never runs it. */
  protected initialized = false;
  /** Bumped when the agent is deleted, so a call that was in flight then answers "no such agent". */
  protected generation = 0;

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

  protected get name(): string {
    return this.ctx.id.name ?? this.ctx.id.toString();
  }

  protected async init() {
    migrateSchema(this.ctx.storage, AGENT_MEMORY_SCHEMA);
    packPendingCodes(this.ctx.storage);
    this.config = loadConfig(this.ctx.storage.sql);
    const vectors = await buildVectorStoreOrUnavailable(this.ctx.storage.sql, this.env, this.config, this.name);
    this.mem = {
      storage: this.ctx.storage,
      sql: this.ctx.storage.sql,
      now: () => Date.now(),
      newId: (prefix) => `${prefix}_${crypto.randomUUID().replace(/-/g, "").slice(0, 20)}`,
      config: () => this.config,
      vectors,
      reviewAvailable: () => llmVariablesPresent(this.env),
      admissionMode: () => variables(this.env).ADMISSION_MODE,
      requestReview: () => this.requestReview(),
      requestJob: (type) => this.requestJob(type),
      emitEvents: (events) => this.emitEvents(events),
    };
    this.rooms = openStores(
      this.mem,
      (episodeId, jobId) => this.enqueueExtraction(episodeId, jobId),
      libraryPort(this.env, () => this.who().tenantId),
      (libraryId, err) =>
        createLogger({ agent: this.name }, variables(this.env).LOG_LEVEL).warn(
          "a shared library did not answer; its lessons are left out of this read",
          {
            libraryId,
            err: String(err),
          },
        ),
    );
    this.upkeep = new UpkeepAlarm(this.ctx.storage, () => this.mem.vectors.backfillDueAt());
    await vectors.load();
    await this.upkeep.arm();
    // A deployment whose EMBEDDER changed (the default became `semantic`) finds its agents' vectors in
    // the old space; they re-embed in the background, matched lexically meanwhile. Queueing is best
    // effort: the next start or embedder change asks again, and the agent must start regardless.
    if (vectors.embedder) await this.scheduleReembed().catch(() => undefined);
    this.initialized = true;
  }

  protected ready() {
    if (this.initError) throw this.initError;
  }

  /**
   * Every RPC method runs through here: init errors surface, domain errors become values, and the
   * agent is swept soon after it was used (`touch: false` for the sweep itself).
   */
  protected rpc<T>(fn: () => T | Promise<T>, opts: { touch?: boolean } = {}) {
    return outcome(async () => {
      await this.requireAgent();
      this.ready();
      const generation = this.generation;
      try {
        return await fn();
      } finally {
        if (generation !== this.generation) this.refuseDeleted();
        if (opts.touch !== false) await this.upkeep.touched(Date.now());
      }
    });
  }

  protected get episodeTtlMs(): number {
    return variables(this.env).EPISODE_TTL_MINUTES * 60_000;
  }

  /**
   * Sweeps, then sets the next sweep to when something next falls due (none: the object sleeps
   * until it is called). With `remedial`, ended episodes since the last check ask the jobs queue for
   * a remedial-practice check, which needs the control plane the object does not reach.
   */
  protected async sweepAndPlan(at: number, remedial: boolean) {
    const calls = this.upkeep.calls;
    const swept = await runSweep(this.mem, this.rooms, at, this.episodeTtlMs);
    const newest = remedial && this.config.remedial.enabled ? remedialCheckDue(this.mem) : null;
    if (newest !== null) {
      await this.env.JOBS.send({ type: "agent.remedial", ...this.sender(), at });
      remedialCheckAsked(this.mem, newest);
    }
    const next = nextSweepDue(this.mem, this.rooms, swept, Date.now(), this.episodeTtlMs);
    // A call made during this sweep's awaits left its own sweep to this plan (see UpkeepAlarm.calls).
    await this.upkeep.planSweep(this.upkeep.calls === calls ? next : Math.min(next ?? Infinity, Date.now() + ACTIVE_SWEEP_MS));
    return swept;
  }

  /** Upkeep that fell due: the next backfill chunk, the sweep. The cron calls no agent. */
  override async alarm(): Promise<void> {
    if (!this.initialized || this.initError || agentState(this.ctx.storage) !== "active") return;
    this.upkeep.fired();
    const now = Date.now();
    try {
      const backfill = this.mem.vectors.backfillDueAt();
      if (backfill !== null && backfill <= now) await this.mem.vectors.backfillStep();
      const due = this.upkeep.sweepDue();
      if (due !== null && due <= now) await this.sweepAndPlan(now, true);
    } catch (err) {
      // Tried again at the active cadence (not rethrown: the platform's own retries would spin on a
      // lasting failure), so upkeep neither stops nor hammers what failed.
      this.upkeep.planLater(now + ACTIVE_SWEEP_MS);
      createLogger({ agent: this.name }, variables(this.env).LOG_LEVEL).error("agent upkeep failed", { err: String(err) });
    } finally {
      await this.upkeep.arm();
    }
  }

  /**
   * Refuses work begun for an earlier incarnation of this agent (it was deleted and created again
   * since): a 404, as for a deleted agent. Work that names no incarnation is the current agent's.
   * Returns undefined, so a door can chain it with `??`.
   */
  protected sameIncarnation(incarnation: string | undefined, what: string): undefined {
    if (incarnation !== undefined && incarnation !== agentIncarnation(this.ctx.storage)) {
      throw DomainError.notFound(
        `${what} was begun for an earlier agent '${agentIdentity(this.ctx.id.name)?.agentId ?? "?"}' (deleted and created again since); it is not applied.`,
      );
    }
    return undefined;
  }

  protected refuseDeleted(): never {
    throw DomainError.notFound(`Agent '${agentIdentity(this.ctx.id.name)?.agentId ?? "?"}' does not exist.`);
  }

  /** Refuses every call for an agent that does not exist (never created, or deleted). */
  protected async requireAgent(): Promise<void> {
    const state = agentState(this.ctx.storage);
    if (state === "active") return;
    const who = agentIdentity(this.ctx.id.name);
    if (state === "deleted" || !who || !(await existsInControlPlane(this.env.DB, who.tenantId, who.agentId))) this.refuseDeleted();
    await this.ctx.blockConcurrencyWhile(async () => {
      if (!this.initialized) await this.init();
      setAgentState(this.ctx.storage, "active", Date.now());
    });
  }

  protected buildVectorStore(): Promise<VectorStore> {
    return buildVectorStore(this.ctx.storage.sql, this.env, this.config, this.name);
  }

  protected who() {
    const who = agentIdentity(this.ctx.id.name);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the message shows the caller the template to write
    if (!who) throw new Error("AgentMemory has no name; it must be addressed with getByName(`${tenantId}:${agentId}`)");
    return who;
  }

  /** Who the agent is, with its incarnation, for the messages it queues about itself. */
  protected sender() {
    return { ...this.who(), incarnation: agentIncarnation(this.ctx.storage) };
  }

  protected async enqueueExtraction(episodeId: string, jobId: string) {
    await this.env.JOBS.send({ type: "live.extract", ...this.sender(), episodeId, jobId });
  }

  /** Queues the safety review of pending entries. Best effort: the sweep asks again while any wait. */
  protected async requestReview() {
    if (!agentIdentity(this.ctx.id.name)) return;
    await this.env.JOBS.send({ type: "admission.review", ...this.sender() }).catch(() => undefined);
  }

  /** Queues an agent-wide background job. Best effort: the sweep asks again while there is work. */
  protected async requestJob(type: "lesson.when") {
    if (agentIdentity(this.ctx.id.name)) await this.env.JOBS.send({ type, ...this.sender() }).catch(() => undefined);
  }

  /** Sends the events as jobs-queue messages; a failed send is logged, the write stands. */
  protected async emitEvents(events: readonly AgentEvent[]) {
    const who = agentIdentity(this.ctx.id.name);
    if (!who || events.length === 0) return;
    const at = Date.now();
    const full = events.map((e) => ({
      id: e.id,
      type: e.type,
      tenantId: who.tenantId,
      occurredAt: at,
      data: { agentId: who.agentId, ...e.data },
    }));
    // sendBatch takes at most 100 messages; a commit of more than 5,000 lessons sends several batches.
    const messages = eventMessages(who.tenantId, full);
    for (let i = 0; i < messages.length; i += 100) {
      await this.env.JOBS.sendBatch(messages.slice(i, i + 100).map((body) => ({ body }))).catch((err: unknown) =>
        createLogger({ agent: who.agentId }, variables(this.env).LOG_LEVEL).warn("event send failed", {
          err: String(err),
          events: full.length,
        }),
      );
    }
  }

  /** Queues background re-embedding; until it finishes, un-embedded items are matched lexically. */
  protected async scheduleReembed() {
    if (!agentIdentity(this.ctx.id.name) || missingVectorCount(this.mem) === 0) return;
    await this.env.JOBS.send({ type: "agent.reembed", ...this.sender(), model: this.mem.vectors.model });
  }
}
