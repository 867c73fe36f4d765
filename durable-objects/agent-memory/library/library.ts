import {
  ExperienceCreateSchema,
  ExperiencePatchSchema,
  type Experience,
  type ExperiencePatch,
  type LibraryOperation,
  type ListFilter,
  type Provenance,
} from "../../../src/core/memory-types";
import { DomainError } from "../../../src/core/errors";
import { nextSeq, type AgentEvent, type MemoryContext } from "../storage/context";
import { listPage } from "../storage/list-page";
import type { RecordResult } from "../storage/idempotency";
import type { VectorStore } from "../vectors/store";
import { experienceEmbedText, experienceOut, snapshotOf, type ExperienceRow, type ExperienceSnapshot } from "../storage/rows";
import { embedTextIfChanged, pickContent, prefixIssues, sameContent } from "./experience-content";
import { forgetHold, mayTouchHeld, provenanceOf, recordHold, screenExperience, type ScreeningPolicy } from "../screening/screen";
import {
  heldSince,
  listVersions,
  restoreLearning,
  retireLearning,
  stateAt,
  versionDetail,
  versionDiff,
  type LibraryChange,
} from "./history";
import { tombstones } from "../screening/tombstones";
import { insertExperience, relabelled, updateExperience, versionEvents } from "./version-rows";
export type { LibraryChange, LibraryVersion } from "./history";
import { isHeld } from "../../../src/core/memory-types";

/** A resolved change: what one experience becomes in a version (`after: null` deletes it). */
export type Intent =
  | {
      kind: "put";
      id: string;
      after: ExperienceSnapshot;
      embedText: string | null;
      reseq?: boolean;
      probation?: boolean;
      setQ?: boolean;
      /** The lesson earned trust (a practice run's gate passed with it): it leaves probation in this version. */
      trusted?: boolean;
    }
  | { kind: "delete"; id: string };

/** What one committed version returns (and what an idempotent retry replays). */
export interface CommitResult {
  version: number;
  experiences: Experience[];
  deleted: string[];
  /** The plan held nothing to change, so no version was written. */
  unchanged: boolean;
}

/** A version's reason, or how to word it from what the version turned out to change. */
export type Reason = string | ((intents: Intent[]) => string);

/** How a version was asked for: its screening policy, and the work it completes (a live job, a practice promotion), if any. */
export interface CommitOptions {
  screening?: ScreeningPolicy;
  jobId?: string;
}

/** A client's own write when nothing else is said: the strictest policy. */
const CLIENT_WRITE: ScreeningPolicy = { door: "api" };

/** Rounds of embed-then-commit before a write that keeps being overtaken gives up. */
const COMMIT_ATTEMPTS = 3;

/**
 * The experience library. Every change to an experience's content or status is one atomic
 * version (N+1) recording each experience's before/after, so any version can be rebuilt,
 * diffed and rolled back. Utility (Q, counts) is learned state, not library content.
 */
export class Library {
  /** The seqs of the active experiences, ascending: an experience's label is G + its place here. */
  private activeSeqs = new Float64Array(0);

  constructor(private readonly ctx: MemoryContext) {
    this.refreshLabels();
  }

  /** Labels G0…Gn follow creation order among active experiences and are re-assigned after each change. */
  refreshLabels(): void {
    // One row however large the library: SQLite walks the (status, seq) index and hands back one JSON array.
    const { seqs } = this.ctx.sql
      .exec<{ seqs: string }>("SELECT json_group_array(seq) AS seqs FROM experiences WHERE status = 'active'")
      .one();
    this.activeSeqs = Float64Array.from(JSON.parse(seqs) as number[]).sort();
  }

  /** The label of the experience with this seq, or null when it is not active. */
  labelOf(seq: number): string | null {
    const seqs = this.activeSeqs;
    let lo = 0;
    let hi = seqs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (seqs[mid]! < seq) lo = mid + 1;
      else hi = mid;
    }
    return seqs[lo] === seq ? `G${lo}` : null;
  }

  /** The version that completed this work (a live job, a practice run's promotion), kept with the history: never pruned. */
  versionFor(jobId: string): { version: number; changes: number } | null {
    return (
      this.ctx.sql
        .exec<{ version: number; changes: number }>("SELECT version, changes FROM library_versions WHERE job_id = ?", jobId)
        .toArray()[0] ?? null
    );
  }

  row(id: string): ExperienceRow | null {
    return this.ctx.sql.exec<ExperienceRow>("SELECT * FROM experiences WHERE id = ?", id).toArray()[0] ?? null;
  }

  out(row: ExperienceRow, withHistory = false): Experience {
    const e = experienceOut(row, this.labelOf(row.seq), this.ctx.vectors.modelOf(row.id), this.ctx.vectors.model);
    if (withHistory) {
      e.qHistory = this.ctx.sql
        .exec<{ at: number; q: number; delta: number; reward: number; episode_id: string | null; retrieval_id: string | null }>(
          "SELECT at, q, delta, reward, episode_id, retrieval_id FROM q_history WHERE item_id = ? ORDER BY seq DESC LIMIT 50",
          row.id,
        )
        .toArray()
        .reverse()
        .map(({ episode_id, retrieval_id, ...h }) => ({ ...h, episodeId: episode_id, retrievalId: retrieval_id }));
    }
    return e;
  }

  get(id: string): Experience {
    const row = this.row(id);
    if (!row) throw DomainError.notFound(`Experience '${id}' does not exist.`);
    return this.out(row, true);
  }

  list(filter: ListFilter): { items: Experience[]; nextCursor: string | null } {
    return listPage<ExperienceRow, Experience>(this.ctx.sql, "experiences", "text", filter, (r) => this.out(r));
  }

  /** Validates operations against the current library and turns them into intents. */
  resolve(ops: LibraryOperation[], provenance: Provenance | null, policy: ScreeningPolicy = CLIENT_WRITE): Intent[] {
    const now = this.ctx.now();
    const pending = new Map<string, ExperienceSnapshot | null>();
    const current = (id: string): ExperienceSnapshot | null => {
      if (pending.has(id)) return pending.get(id)!;
      const row = this.row(id);
      return row ? snapshotOf(row) : null;
    };
    const intents: Intent[] = [];
    ops.forEach((op, i) => {
      if (op.op === "create") {
        const parsed = ExperienceCreateSchema.safeParse(op.experience);
        if (!parsed.success) throw DomainError.unprocessable("Invalid experience", prefixIssues(parsed.error.issues, [i, "experience"]));
        const { q, provenance: own, ...content } = parsed.data;
        const id = this.ctx.newId("exp");
        const after: ExperienceSnapshot = {
          id,
          seq: 0,
          ...content,
          ...provenanceOf(policy, { source: content.source, q, own, service: provenance, defaultQ: this.ctx.config().defaultQ }),
          createdAt: now,
        };
        pending.set(id, after);
        // A live lesson brought in from elsewhere has not earned trust here.
        intents.push({
          kind: "put",
          id,
          after,
          embedText: experienceEmbedText(content),
          probation: policy.door === "import" && content.source === "live",
        });
        return;
      }
      const before = current(op.id);
      if (!before) throw DomainError.notFound(`Experience '${op.id}' does not exist (operation ${i}).`);
      if (op.op === "delete") {
        pending.set(op.id, null);
        intents.push({ kind: "delete", id: op.id });
        return;
      }
      let patch: ExperiencePatch;
      if (op.op === "archive") patch = { status: "archived" };
      else {
        const parsed = ExperiencePatchSchema.safeParse(op.patch);
        if (!parsed.success) throw DomainError.unprocessable("Invalid patch", prefixIssues(parsed.error.issues, [i, "patch"]));
        patch = parsed.data;
      }
      const after: ExperienceSnapshot = { ...before, ...patch };
      pending.set(op.id, after);
      intents.push({ kind: "put", id: op.id, after, embedText: embedTextIfChanged(before, after) });
    });
    return intents;
  }

  /** Applies operations as one new version, resolved against the library as it stands when the version commits. */
  async apply(
    ops: LibraryOperation[],
    meta: { reason: string; author: string; provenance?: Provenance | null; record?: RecordResult<CommitResult> } & CommitOptions,
  ): Promise<CommitResult> {
    if (!ops.length) throw DomainError.unprocessable("No operations given.");
    const screening = meta.screening ?? CLIENT_WRITE;
    return this.commit(() => this.resolve(ops, meta.provenance ?? null, screening), meta.reason, meta.author, meta.record, {
      ...meta,
      screening,
    });
  }

  /** This library as seen by a caller that writes through it (apply, resolve, commit) with its screening policy fixed. */
  screening(fixed: ScreeningPolicy): Library {
    const view = Object.create(this) as Library;
    view.apply = (ops, meta) => this.apply(ops, { ...meta, screening: fixed });
    view.resolve = (ops, provenance, policy) => this.resolve(ops, provenance, policy ?? fixed);
    view.commit = (plan, reason, author, record, opts = {}) =>
      this.commit(plan, reason, author, record, { ...opts, screening: opts.screening ?? fixed });
    return view;
  }

  /**
   * Commits what `plan` makes of the library as one version. Embedding awaits (a remote embedder
   * lets other writes run meanwhile), so the plan is run once to learn what to embed and again
   * inside the transaction against fresh rows: a change committed during the await is built on,
   * never reverted, and a deleted item is not resurrected. If the fresh plan needs text that was
   * not embedded, or the embedder was swapped, it starts over with what it now knows.
   */
  async commit(
    plan: () => Intent[],
    reason: Reason,
    author: string,
    record?: RecordResult<CommitResult>,
    opts: CommitOptions = {},
  ): Promise<CommitResult> {
    const embedded = new Map<string, Float32Array>();
    let vectors = this.ctx.vectors;
    for (let attempt = 1; ; attempt++) {
      const wanted = [
        ...new Set(plan().flatMap((i) => (i.kind === "put" && i.embedText !== null && !embedded.has(i.embedText) ? [i.embedText] : []))),
      ];
      const got = wanted.length ? await vectors.embed(wanted) : [];
      if (vectors !== this.ctx.vectors) {
        vectors = this.ctx.vectors;
        embedded.clear();
      } else {
        wanted.forEach((text, n) => embedded.set(text, got[n]!));
        const happened: AgentEvent[] = [];
        const result = this.tryCommit(plan, reason, author, vectors, embedded, record, opts, happened);
        if (result) {
          await this.ctx.emitEvents(happened);
          if (result.experiences.some((e) => e.status === "pending")) await this.ctx.requestReview();
          const live = result.experiences.filter((e) => e.status === "active").map((e) => e.id);
          const gone = result.experiences.filter((e) => e.status !== "active").map((e) => e.id);
          await vectors.publish(live, [...result.deleted, ...gone]);
          return result;
        }
      }
      if (attempt === COMMIT_ATTEMPTS)
        throw DomainError.retryLater("The library kept changing while this write was being embedded; retry it.");
    }
  }

  /** One transaction: null when the fresh plan needs a vector that was not computed, so nothing was written. */
  private tryCommit(
    plan: () => Intent[],
    reason: Reason,
    author: string,
    vectors: VectorStore,
    embedded: Map<string, Float32Array>,
    record: RecordResult<CommitResult> | undefined,
    opts: CommitOptions,
    happened: AgentEvent[],
  ): CommitResult | null {
    const policy = opts.screening ?? CLIENT_WRITE;
    const sql = this.ctx.sql;
    const now = this.ctx.now();
    try {
      return this.ctx.storage.transactionSync(() => {
        const intents = plan();
        if (intents.some((i) => i.kind === "put" && i.embedText !== null && !embedded.has(i.embedText))) return null;
        if (!intents.length) {
          const unchanged: CommitResult = { version: this.currentVersion(), experiences: [], deleted: [], unchanged: true };
          record?.(unchanged);
          return unchanged;
        }
        const v = this.currentVersion() + 1;
        const touched = new Set<string>();
        const deleted: string[] = [];
        for (const intent of intents) {
          const row = this.row(intent.id);
          const before = row ? snapshotOf(row) : null;
          let after: ExperienceSnapshot | null = null;
          let op: LibraryChange["op"];
          if (intent.kind === "delete") {
            if (!row) throw DomainError.notFound(`Experience '${intent.id}' does not exist.`);
            if (isHeld(row.status) && !mayTouchHeld(policy)) {
              throw DomainError.forbidden(
                `Experience '${intent.id}' is held (${row.status}); an admin key deletes it through the agent's quarantine.`,
              );
            }
            retireLearning(sql, intent.id, now);
            sql.exec("DELETE FROM experiences WHERE id = ?", intent.id);
            forgetHold(this.ctx, intent.id);
            vectors.deleteSync(intent.id);
            deleted.push(intent.id);
            op = "delete";
          } else {
            const screened = screenExperience(this.ctx, before, intent.after, policy, author);
            recordHold(this.ctx, intent.id, "experience", screened, policy, author);
            if (!row) {
              const keepSeq = intent.after.seq > 0 && !intent.reseq;
              after = { ...screened.value, seq: keepSeq ? intent.after.seq : nextSeq(sql, "experience") };
              insertExperience(sql, after, now, intent.probation);
              if (!intent.setQ) restoreLearning(sql, after.id, after.text, policy.door === "rollback");
              op = keepSeq ? "restore" : "create";
            } else {
              after = { ...screened.value, seq: intent.reseq ? nextSeq(sql, "experience") : row.seq };
              updateExperience(sql, after, now);
              if (intent.setQ) sql.exec("UPDATE experiences SET q = ? WHERE id = ?", after.q, after.id);
              // Rewritten text has to earn trust again when the lesson is live (whoever rewrote it) or the
              // live learner rewrote it. Set in the version's own transaction: a failed write leaves the old
              // text served as it was, and no prompt can carry the new text before it is on probation.
              if (after.text !== before!.text && (after.source === "live" || policy.door === "live")) {
                sql.exec("UPDATE experiences SET probation = 1 WHERE id = ?", after.id);
              }
              if (intent.trusted) sql.exec("UPDATE experiences SET probation = 0 WHERE id = ?", after.id);
              op = after.status === "archived" && before!.status !== "archived" ? "archive" : "update";
            }
          }
          if (after && intent.kind === "put" && intent.embedText !== null)
            vectors.writeSync(intent.id, "experience", embedded.get(intent.embedText)!);
          touched.add(intent.id);
          sql.exec(
            `INSERT INTO library_changes (version, experience_id, op, before, after) VALUES (?, ?, ?, ?, ?)
             ON CONFLICT(experience_id, version) DO UPDATE SET op = excluded.op, after = excluded.after`,
            v,
            intent.id,
            op,
            before ? JSON.stringify(before) : null,
            after ? JSON.stringify(after) : null,
          );
        }
        const changes = sql.exec<{ n: number }>("SELECT count(*) AS n FROM library_changes WHERE version = ?", v).one().n;
        sql.exec(
          "INSERT INTO library_versions (version, reason, author, created_at, changes, job_id) VALUES (?, ?, ?, ?, ?, ?)",
          v,
          typeof reason === "string" ? reason : reason(intents),
          author,
          now,
          changes,
          opts.jobId ?? null,
        );
        happened.length = 0;
        const { events, left, joined } = versionEvents(sql, v, touched);
        happened.push(...events);
        this.activeSeqs = relabelled(this.activeSeqs, left, joined);
        const experiences = [...touched]
          .map((id) => this.row(id))
          .filter((r): r is ExperienceRow => r !== null)
          .map((r) => this.out(r));
        const result: CommitResult = { version: v, experiences, deleted, unchanged: false };
        record?.(result);
        return result;
      });
    } catch (err) {
      // Labels were updated from changes the rollback has just undone.
      this.refreshLabels();
      throw err;
    }
  }

  currentVersion(): number {
    return this.ctx.sql.exec<{ v: number | null }>("SELECT max(version) AS v FROM library_versions").one().v ?? 0;
  }

  versions(limit: number, before?: number) {
    return listVersions(this.ctx.sql, limit, before);
  }

  /** The library exactly as it stood after version n (0 is the empty library). */
  stateAt(n: number): ExperienceSnapshot[] {
    return stateAt(this.ctx.sql, n);
  }

  versionDetail(n: number) {
    return versionDetail(this.ctx.sql, n);
  }

  /** Version n's active lessons as an evaluation injects them: without those held or removed since. */
  evaluationLibrary(n: number): { experiences: { id: string; text: string }[]; skipped: string[] } {
    const active = versionDetail(this.ctx.sql, n).experiences.filter((e) => e.status === "active");
    const held = heldSince(this.ctx.sql, n);
    return {
      experiences: active.filter((e) => !held.has(e.id)).map((e) => ({ id: e.id, text: e.text })),
      skipped: active.filter((e) => held.has(e.id)).map((e) => e.id),
    };
  }

  diff(n: number) {
    return versionDiff(this.ctx.sql, n);
  }

  /**
   * Restores the content of version n as a new version. Learned state is kept: surviving lessons keep
   * theirs, and a lesson brought back gets back what it had learned when it was deleted. Restored
   * text passes screening again (an entry that was never admitted stays held), what is held now is
   * left for its review (a rollback neither drops nor releases it), and what an admin removed from
   * the quarantine stays removed.
   */
  async rollback(n: number, author: string, record?: RecordResult<CommitResult>): Promise<CommitResult> {
    const screening: ScreeningPolicy = { door: "rollback", internal: true, holdReason: `restored held by the rollback to version ${n}` };
    return this.commit(() => this.rollbackPlan(n), `rollback to version ${n}`, author, record, { screening });
  }

  private rollbackPlan(n: number): Intent[] {
    const target = new Map(this.stateAt(n).map((s) => [s.id, s]));
    const intents: Intent[] = [];
    for (const row of this.ctx.sql.exec<ExperienceRow>("SELECT * FROM experiences ORDER BY seq").toArray()) {
      const want = target.get(row.id);
      if (isHeld(row.status)) {
        target.delete(row.id);
        continue;
      }
      if (!want) intents.push({ kind: "delete", id: row.id });
      else {
        const have = snapshotOf(row);
        if (!sameContent(have, want)) {
          const after = { ...have, ...pickContent(want) };
          intents.push({ kind: "put", id: row.id, after, embedText: embedTextIfChanged(have, after) });
        }
        target.delete(row.id);
      }
    }
    // What an admin removed from quarantine stays removed.
    const removed = tombstones(this.ctx.sql);
    for (const restored of target.values()) {
      if (removed.ids.has(restored.id)) continue;
      intents.push({ kind: "put", id: restored.id, after: restored, embedText: experienceEmbedText(restored) });
    }
    return intents;
  }
}
