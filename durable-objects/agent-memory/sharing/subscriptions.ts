import type { MemoryFilter } from "../../../src/core/memory-types";
import {
  mergeShared,
  sharedRef,
  type MergeableCandidate,
  type SharedLessonState,
  type Subscription,
} from "../../../src/core/shared-lessons";
import { emaUpdate } from "../../../src/core/q-learning";
import { chunks, placeholders, type MemoryContext } from "../storage/context";
import { filterSql } from "../retrieval/memory-filter";

/** What a subscriber sends a library with a query: the library ranks with the same vector when its embedder is the subscriber's. */
export interface SharedQuery {
  text: string;
  vec: Float32Array;
  model: string;
  threshold: number;
}

/**
 * How an agent's object reaches the objects of the libraries it subscribes to, at the subscription's
 * version (its pin, else the latest). `null`: the library no longer exists (deleted); a read leaves
 * it out, and the agent's sweep ends the subscription (`exists`).
 */
export interface LibraryPort<C extends MergeableCandidate> {
  candidates(sub: Subscription, query: SharedQuery, k1: number, filter: MemoryFilter | undefined): Promise<C[] | null>;
  lessons(sub: Subscription, filter: MemoryFilter | undefined): Promise<{ id: string; text: string }[] | null>;
  /** False once the library is deleted; a library that fails otherwise throws (it may well still exist). */
  exists(libraryId: string): Promise<boolean>;
}

interface SubscriptionRow extends Record<string, SqlStorageValue> {
  library_id: string;
  weight: number;
  pin_version: number | null;
  created_at: number;
}

const subscriptionOf = (r: SubscriptionRow) => ({
  libraryId: r.library_id,
  weight: r.weight,
  pinVersion: r.pin_version,
  createdAt: r.created_at,
});

interface StateRow extends Record<string, SqlStorageValue> {
  library_id: string;
  lesson_id: string;
  q: number;
  retrieved: number;
  successes: number;
  failures: number;
  last_used_at: number | null;
}

const stateOf = (r: StateRow): SharedLessonState => ({
  q: r.q,
  retrieved: r.retrieved,
  successes: r.successes,
  failures: r.failures,
  lastUsedAt: r.last_used_at,
});

/**
 * The shared libraries this agent draws on, and what it learned of their lessons. A library's
 * write touches no subscriber: each read asks the subscribed libraries for their candidates (one
 * call per library, in parallel) and ranks them beside the agent's own with the agent's own Q.
 */
export class Subscriptions<C extends MergeableCandidate> {
  constructor(
    private readonly ctx: MemoryContext,
    private readonly port: LibraryPort<C>,
  ) {}

  list(): (Subscription & { createdAt: number })[] {
    return this.ctx.sql.exec<SubscriptionRow>("SELECT * FROM subscriptions ORDER BY created_at, library_id").toArray().map(subscriptionOf);
  }

  /** Subscribes, or changes the weight and the pin (the agent's Q for the library's lessons stays). */
  put(sub: Subscription): Subscription & { createdAt: number } {
    return subscriptionOf(
      this.ctx.sql
        .exec<SubscriptionRow>(
          `INSERT INTO subscriptions (library_id, weight, pin_version, created_at) VALUES (?, ?, ?, ?)
           ON CONFLICT(library_id) DO UPDATE SET weight = excluded.weight, pin_version = excluded.pin_version RETURNING *`,
          sub.libraryId,
          sub.weight,
          sub.pinVersion,
          this.ctx.now(),
        )
        .one(),
    );
  }

  /** Ends the subscription and forgets what the agent learned of the library's lessons. */
  remove(libraryId: string): boolean {
    return this.ctx.storage.transactionSync(() => {
      const had = this.ctx.sql.exec("SELECT 1 FROM subscriptions WHERE library_id = ?", libraryId).toArray().length > 0;
      this.ctx.sql.exec("DELETE FROM subscriptions WHERE library_id = ?", libraryId);
      this.ctx.sql.exec("DELETE FROM shared_lessons WHERE library_id = ?", libraryId);
      return had;
    });
  }

  /** This agent's Q and counters for the lessons of a library it used (none for lessons it never saw). */
  stats(libraryId: string): ({ id: string } & SharedLessonState)[] {
    return this.ctx.sql
      .exec<StateRow>("SELECT * FROM shared_lessons WHERE library_id = ? ORDER BY lesson_id", libraryId)
      .toArray()
      .map((r) => ({ id: r.lesson_id, ...stateOf(r) }));
  }

  /** This agent's own Q and counters for these shared lessons, by sharedRef (none for a lesson it never used). */
  states(refs: readonly { libraryId: string; id: string }[]): Map<string, SharedLessonState> {
    const out = new Map<string, SharedLessonState>();
    const byLibrary = new Map<string, string[]>();
    for (const r of refs) byLibrary.set(r.libraryId, [...(byLibrary.get(r.libraryId) ?? []), r.id]);
    for (const [libraryId, ids] of byLibrary) {
      for (const part of chunks(ids)) {
        for (const r of this.ctx.sql.exec<StateRow>(
          `SELECT * FROM shared_lessons WHERE library_id = ? AND lesson_id IN (${placeholders(part.length)})`,
          libraryId,
          ...part,
        )) {
          out.set(sharedRef(libraryId, r.lesson_id), stateOf(r));
        }
      }
    }
    return out;
  }

  /**
   * Ends the subscriptions to libraries deleted since (the agent's sweep): a read only leaves a
   * deleted library out, so it writes nothing. A library that fails to answer is kept.
   */
  async endGone(): Promise<string[]> {
    const gone = await Promise.all(
      this.list().map(async (s) => ((await this.port.exists(s.libraryId).catch(() => true)) ? null : s.libraryId)),
    );
    return gone.filter((id): id is string => id !== null && this.remove(id));
  }

  /**
   * Calls every subscribed library; a deleted one, and one that fails, is left out of this answer
   * (the agent's own lessons still serve) rather than failing it.
   */
  private async ask<T>(call: (sub: Subscription) => Promise<T | null>, onFailure: (libraryId: string, err: unknown) => void) {
    const subs = this.list();
    const answers = await Promise.all(
      subs.map(async (s) => {
        try {
          const value = await call(s);
          return value === null ? null : { ...s, value };
        } catch (err) {
          onFailure(s.libraryId, err);
          return null;
        }
      }),
    );
    return answers.filter((a): a is NonNullable<typeof a> => a !== null);
  }

  /** The agent's candidates with its subscribed libraries' beside them (see mergeShared). */
  async merge(
    own: C[],
    query: { text: string; vec: Float32Array },
    k1: number,
    threshold: number,
    filter: MemoryFilter | undefined,
    onFailure: (libraryId: string, err: unknown) => void,
  ) {
    if (!this.any()) return own;
    const shared: SharedQuery = { text: query.text, vec: query.vec, model: this.ctx.vectors.model, threshold };
    const libraries = (await this.ask((sub) => this.port.candidates(sub, shared, k1, filter), onFailure)).map((a) => ({
      ...a,
      candidates: a.value,
    }));
    const states = this.states(libraries.flatMap((l) => l.candidates.map((c) => ({ libraryId: l.libraryId, id: c.id }))));
    return mergeShared(own, libraries, (libraryId, id) => states.get(sharedRef(libraryId, id)), this.ctx.config().defaultQ);
  }

  /** Every active lesson of the subscribed libraries that is not on probation, library by library, for a prompt that shows the whole library. */
  async lessons(filter: MemoryFilter | undefined, onFailure: (libraryId: string, err: unknown) => void) {
    const answers = await this.ask((sub) => this.port.lessons(sub, filter), onFailure);
    const states = this.states(answers.flatMap((a) => a.value.map((l) => ({ libraryId: a.libraryId, id: l.id }))));
    const defaultQ = this.ctx.config().defaultQ;
    return answers.flatMap((a) =>
      a.value.map((l) => ({
        ...l,
        libraryId: a.libraryId,
        ref: sharedRef(a.libraryId, l.id),
        q: states.get(sharedRef(a.libraryId, l.id))?.q ?? defaultQ,
      })),
    );
  }

  any(): boolean {
    return this.ctx.sql.exec("SELECT 1 FROM subscriptions LIMIT 1").toArray().length > 0;
  }

  /**
   * Counts uses of shared lessons shown (`n`, default 1, the last at `lastUsedAt`, default now):
   * inside a recorded retrieval's transaction, or from a Worker's batch of token retrievals' counts
   * (retrieval-counts.ts), where a library the agent no longer subscribes to is skipped.
   */
  recordUse(items: readonly { libraryId: string; lessonId: string; n?: number; lastUsedAt?: number }[], now: number): void {
    const defaultQ = this.ctx.config().defaultQ;
    for (const i of items) {
      this.ctx.sql.exec(
        `INSERT INTO shared_lessons (library_id, lesson_id, q, retrieved, last_used_at)
         SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM subscriptions WHERE library_id = ?)
         ON CONFLICT (library_id, lesson_id) DO UPDATE SET retrieved = retrieved + excluded.retrieved,
           last_used_at = max(coalesce(last_used_at, 0), excluded.last_used_at)`,
        i.libraryId,
        i.lessonId,
        defaultQ,
        i.n ?? 1,
        i.lastUsedAt ?? now,
        i.libraryId,
      );
    }
  }

  /**
   * A reward reaching a shared lesson moves this agent's Q for it, by the same EMA as its own
   * lessons, inside the reward's transaction; `cited: false` counts it as shown and not cited.
   */
  reward(
    t: { libraryId: string; lessonId: string; citeOnly: boolean },
    how: { r: number; alpha: number; now: number; cited: boolean | null },
  ): { qBefore: number; q: number } | null {
    const row = this.ctx.sql
      .exec<{ q: number }>("SELECT q FROM shared_lessons WHERE library_id = ? AND lesson_id = ?", t.libraryId, t.lessonId)
      .toArray()[0];
    const qBefore = row?.q ?? this.ctx.config().defaultQ;
    if (how.cited === false) {
      this.ctx.sql.exec(
        `INSERT INTO shared_lessons (library_id, lesson_id, q, uncited) VALUES (?, ?, ?, 1)
         ON CONFLICT (library_id, lesson_id) DO UPDATE SET uncited = uncited + 1`,
        t.libraryId,
        t.lessonId,
        qBefore,
      );
      return null;
    }
    const q = emaUpdate(qBefore, how.r, how.alpha);
    const success = how.r > 0 ? 1 : 0;
    const failure = how.r < 0 ? 1 : 0;
    const cited = how.cited ? 1 : 0;
    const shown = t.citeOnly ? 1 : 0;
    this.ctx.sql.exec(
      `INSERT INTO shared_lessons (library_id, lesson_id, q, successes, failures, cited, retrieved, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (library_id, lesson_id) DO UPDATE SET q = excluded.q, successes = successes + excluded.successes, failures = failures + excluded.failures,
         cited = cited + excluded.cited, retrieved = retrieved + excluded.retrieved, last_used_at = excluded.last_used_at`,
      t.libraryId,
      t.lessonId,
      q,
      success,
      failure,
      cited,
      shown,
      how.now,
    );
    return { qBefore, q };
  }
}

/** This agent as a shared library: its active lessons that are not on probation, in label order, for a subscriber's prompt. */
export function lessonsForSubscriber(ctx: MemoryContext, filter: MemoryFilter | undefined): { id: string; text: string }[] {
  const where = filterSql(filter, "experience");
  return ctx.sql
    .exec<{ id: string; text: string }>(
      `SELECT id, text FROM experiences t WHERE status = 'active' AND probation = 0${where.sql} ORDER BY seq`,
      ...where.params,
    )
    .toArray();
}
