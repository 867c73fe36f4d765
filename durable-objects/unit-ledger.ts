import { sha256Hex } from "../src/core/api-key";
import { toBase64url } from "../src/core/encoding";
import { LEASE_MS, MAX_LAPSES, SENT_TIMEOUT_MS } from "../src/core/practice/unit-timing";
import type { UnitResult } from "../src/core/practice/units";

/**
 * The unit ledger: the one lifecycle of the work units that practice runs and evaluations fan out
 * on the queue. It owns the shared columns of the owner's `units` table; the owner keeps its own
 * columns (epoch, step, task, …) beside them and decides what a result means.
 *
 * ```
 *              dispatch (room under `concurrency`)          claim (a message for a sent unit)
 *   pending ───────────────────────────────────► sent ─────────────────────────────► running
 *     ▲  ▲                                        │  ▲                                 │ │ │
 *     │  └──── no claim by its deadline ──────────┘  └── release (retryable failure) ──┘ │ │
 *     │        (message lost; not a lapse)                (the queue redelivers)         │ │
 *     └───────── lease lapsed (no heartbeat) or work deadline passed: lapses + 1 ────────┘ │
 *                 (at MAX_LAPSES: done with the failure instead)                            │
 *                                                                                           │
 *   takeNext: pending ──► running directly, for a consumer that just finished a unit        │
 *   (only while there is room)                                                              │
 *                                                                                           │
 *   running ──report──► done        running ──202──► awaiting ──result / deadline──► done ◄─┘
 * ```
 *
 * - In flight = sent + running + awaiting. `dispatch` and `takeNext` never let it exceed the
 *   owner's concurrency, so a webhook policy that answers 202 holds its slot until its result.
 * - Only a sent unit can be claimed, and a claim holds a numbered lease that the holder renews by
 *   heartbeat; a second message for the same unit finds it running and does nothing.
 * - Every state with a clock (sent, running, awaiting) has a deadline; the owner's alarm fires at
 *   the earliest (`nextWake`) and `sweep` moves what lapsed. A runtime that died therefore resumes
 *   within one lease of coming back.
 * - All methods are synchronous and run inside the owner's storage transaction.
 */

export type UnitStatus = "pending" | "sent" | "running" | "awaiting" | "done";

/** How an owner takes a unit's result: true when it recorded it (a unit it no longer wants answers false). */
export type OwnerReport = (key: string, result: UnitResult) => boolean;

/**
 * Schema steps that turn a pre-ledger `units` table into the ledger's, spread at the end of each
 * owner's steps. Frozen once shipped: a later change to the ledger's columns is a new list.
 */
export const LEDGER_SCHEMA_STEPS: readonly string[] = [
  `ALTER TABLE units ADD COLUMN lapses INTEGER NOT NULL DEFAULT 0;`,
  `ALTER TABLE units ADD COLUMN lease INTEGER NOT NULL DEFAULT 0;`,
  `ALTER TABLE units ADD COLUMN dispatch_id TEXT;`,
  `ALTER TABLE units ADD COLUMN secret_hash TEXT;`,
  `UPDATE units SET status = 'running' WHERE status = 'sent' AND lease_until IS NOT NULL;`,
];

/** The ledger's columns of a unit row. */
export interface LedgerUnit {
  key: string;
  seq: number;
  status: UnitStatus;
  sends: number;
  lapses: number;
  lease: number;
  deadline: number | null;
  lease_until: number | null;
  dispatch_id: string | null;
  secret_hash: string | null;
  result: string | null;
  error: string | null;
}

export type LedgerClaim = { status: "run"; lease: number } | { status: "done" | "busy" | "void" };

/** What a sweep found that the owner must record as a result. */
export interface Lapsed {
  /** Awaiting units whose agent never posted a result in time. */
  timedOut: string[];
  /** Running units whose lease lapsed for the last allowed time. */
  exhausted: { key: string; lapses: number }[];
}

/**
 * What a dispatch to a tenant's agent carries so that only its holder can post the result: a
 * random dispatch id (part of the public rollout id) and a secret of 256 random bits, of which the
 * ledger keeps only the hash.
 */
export interface Holder {
  dispatchId: string;
  secret: string;
  secretHash: string;
}

export async function newHolder(): Promise<Holder> {
  const random = (n: number) => toBase64url(crypto.getRandomValues(new Uint8Array(n)));
  const secret = random(32);
  return { dispatchId: random(16), secret, secretHash: await sha256Hex(secret) };
}

/** What a posted result meets: the unit's holder binding and whether it may still be recorded. */
export type HolderCheck = "ok" | "unknown" | "unauthorized" | "expired";

/** A released unit waits for the queue's retry, whose backoff can reach ~80 s, before it counts as unclaimed. */
const RELEASED_TIMEOUT_MS = SENT_TIMEOUT_MS + 90_000;

export class UnitLedger {
  constructor(
    private readonly sql: SqlStorage,
    private readonly now: () => number,
  ) {}

  unit<T extends LedgerUnit = LedgerUnit>(key: string): T | null {
    return (this.sql.exec("SELECT * FROM units WHERE key = ?", key).toArray()[0] as T | undefined) ?? null;
  }

  /** Adds a pending unit with the owner's columns; creating an existing key is a no-op (re-entrant transitions stay safe). */
  create(key: string, columns: Record<string, SqlStorageValue>): boolean {
    const seq = this.sql.exec<{ n: number }>("SELECT COALESCE(MAX(seq), 0) + 1 AS n FROM units").one().n;
    const names = Object.keys(columns);
    const r = this.sql.exec(
      `INSERT INTO units (key, seq, status, ${names.join(", ")}) VALUES (?, ?, 'pending', ${names.map(() => "?").join(", ")}) ON CONFLICT(key) DO NOTHING`,
      key,
      seq,
      ...names.map((n) => columns[n]!),
    );
    return r.rowsWritten > 0;
  }

  inFlight(): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM units WHERE status IN ('sent', 'running', 'awaiting')").one().n;
  }

  pending(): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM units WHERE status = 'pending'").one().n;
  }

  /** Marks pending units as sent, oldest first, while fewer than `concurrency` are in flight; returns their keys to enqueue. */
  dispatch(concurrency: number): string[] {
    const room = concurrency - this.inFlight();
    if (room <= 0) return [];
    const keys = this.sql
      .exec<{ key: string }>("SELECT key FROM units WHERE status = 'pending' ORDER BY seq LIMIT ?", room)
      .toArray()
      .map((r) => r.key);
    const deadline = this.now() + SENT_TIMEOUT_MS;
    for (const key of keys)
      this.sql.exec("UPDATE units SET status = 'sent', sends = sends + 1, deadline = ?, lease_until = NULL WHERE key = ?", deadline, key);
    return keys;
  }

  /** Units whose message could not be enqueued go back to pending, as if never sent. */
  unsend(keys: readonly string[]): void {
    for (const key of keys)
      this.sql.exec("UPDATE units SET status = 'pending', sends = sends - 1, deadline = NULL WHERE key = ? AND status = 'sent'", key);
  }

  /**
   * A consumer's claim of a sent unit: it becomes running under a new lease that lapses unless
   * renewed, and must finish within `workMs`. Anything else is refused: done (or awaiting its
   * agent) is `done`, a unit someone holds is `busy`, one not dispatched (its message is stale) is `void`.
   */
  claim(key: string, workMs: number): LedgerClaim {
    const u = this.unit(key);
    if (!u) return { status: "void" };
    if (u.status === "done" || u.status === "awaiting") return { status: "done" };
    if (u.status === "running") return { status: "busy" };
    if (u.status !== "sent") return { status: "void" };
    return { status: "run", lease: this.hold(key, u.lease + 1, workMs) };
  }

  private hold(key: string, lease: number, workMs: number): number {
    const now = this.now();
    const deadline = now + workMs;
    this.sql.exec(
      "UPDATE units SET status = 'running', lease = ?, lease_until = ?, deadline = ? WHERE key = ?",
      lease,
      Math.min(now + LEASE_MS, deadline),
      deadline,
      key,
    );
    return lease;
  }

  /**
   * Hands the oldest pending unit straight to a consumer that just finished one, when there is
   * room: the consumer keeps its slot busy instead of waiting for the queue's next batch.
   */
  takeNext(concurrency: number, workMsOf: (u: LedgerUnit) => number): { key: string; lease: number } | null {
    if (this.inFlight() >= concurrency) return null;
    const next = this.sql.exec("SELECT * FROM units WHERE status = 'pending' ORDER BY seq LIMIT 1").toArray()[0] as LedgerUnit | undefined;
    if (!next) return null;
    this.sql.exec("UPDATE units SET sends = sends + 1 WHERE key = ?", next.key);
    return { key: next.key, lease: this.hold(next.key, next.lease + 1, workMsOf(next)) };
  }

  /** The holder is alive: its lease runs on, never past the unit's work deadline. False when the lease is no longer its. */
  heartbeat(key: string, lease: number): boolean {
    const now = this.now();
    const r = this.sql.exec(
      "UPDATE units SET lease_until = MIN(? , deadline) WHERE key = ? AND status = 'running' AND lease = ? AND deadline > ?",
      now + LEASE_MS,
      key,
      lease,
      now,
    );
    return r.rowsWritten > 0;
  }

  /** The holder failed in a way a retry may fix: the unit is sent again (its message is redelivered by the queue). */
  release(key: string, lease: number): void {
    this.sql.exec(
      "UPDATE units SET status = 'sent', lease_until = NULL, deadline = ? WHERE key = ? AND status = 'running' AND lease = ?",
      this.now() + RELEASED_TIMEOUT_MS,
      key,
      lease,
    );
  }

  /**
   * A handed-over unit (no message of its own) failed in a way a retry may fix: back to pending,
   * counted as a lapse. Returns the lapses so far, or null when the lease was not the holder's.
   */
  requeue(key: string, lease: number): number | null {
    const u = this.unit(key);
    if (!u || u.status !== "running" || u.lease !== lease) return null;
    if (u.lapses + 1 < MAX_LAPSES) {
      this.sql.exec("UPDATE units SET status = 'pending', lapses = lapses + 1, lease_until = NULL, deadline = NULL WHERE key = ?", key);
    }
    return u.lapses + 1;
  }

  /** A webhook accepted the unit with 202: it stays in flight, holding its slot, until its result or `untilMs`. */
  toAwaiting(key: string, untilMs: number): void {
    this.sql.exec(
      "UPDATE units SET status = 'awaiting', lease_until = NULL, deadline = ? WHERE key = ? AND status != 'done'",
      this.now() + untilMs,
      key,
    );
  }

  /** Records the unit's result once. False when it was already done. */
  finish(key: string, result: string, error: string | null): boolean {
    const r = this.sql.exec(
      "UPDATE units SET status = 'done', result = ?, error = ?, lease_until = NULL, deadline = NULL, done_at = ? WHERE key = ? AND status != 'done'",
      result,
      error,
      this.now(),
      key,
    );
    return r.rowsWritten > 0;
  }

  /** The owner stopped (cancelled, failed): every unit not done is closed with the reason, so no result is taken later. */
  closeAll(reason: string): number {
    const r = this.sql.exec(
      "UPDATE units SET status = 'done', error = ?, lease_until = NULL, deadline = NULL, done_at = ? WHERE status != 'done'",
      reason,
      this.now(),
    );
    return r.rowsWritten;
  }

  /** Binds a fresh holder (its secret stored hashed) to the unit's current dispatch; an earlier holder's secret stops working. */
  bindHolder(key: string, holder: Holder): void {
    this.sql.exec("UPDATE units SET dispatch_id = ?, secret_hash = ? WHERE key = ?", holder.dispatchId, holder.secretHash, key);
  }

  /**
   * Whether a result posted for (key, dispatch id) comes from the dispatch's holder: the id must be
   * the unit's current dispatch (else the rollout is unknown), the secret's hash must match, and
   * an awaiting unit must be within its deadline. A finished unit passes: the owner compares results.
   */
  checkHolder(key: string, dispatchId: string, secretHash: string | null): HolderCheck {
    const u = this.unit(key);
    if (!u || u.dispatch_id === null || u.dispatch_id !== dispatchId) return "unknown";
    if (secretHash === null || u.secret_hash !== secretHash) return "unauthorized";
    if (u.status === "awaiting" && u.deadline !== null && u.deadline <= this.now()) return "expired";
    return "ok";
  }

  /**
   * The alarm's bookkeeping: unclaimed sends go back to pending (a lost message is not the unit's
   * fault), lapsed leases go back to pending counted as a lapse. What must be recorded as a result
   * (an agent that never posted, a unit out of lapses) is returned for the owner to report.
   */
  sweep(): Lapsed {
    const now = this.now();
    const out: Lapsed = { timedOut: [], exhausted: [] };
    const due = this.sql
      .exec<LedgerUnit & Record<string, SqlStorageValue>>(
        `SELECT * FROM units WHERE (status IN ('sent', 'awaiting') AND deadline <= ?1) OR (status = 'running' AND (lease_until <= ?1 OR deadline <= ?1)) ORDER BY seq`,
        now,
      )
      .toArray();
    for (const u of due) {
      if (u.status === "awaiting") out.timedOut.push(u.key);
      else if (u.status === "sent") this.sql.exec("UPDATE units SET status = 'pending', deadline = NULL WHERE key = ?", u.key);
      else if (u.lapses + 1 >= MAX_LAPSES) {
        this.sql.exec("UPDATE units SET lapses = lapses + 1 WHERE key = ?", u.key);
        out.exhausted.push({ key: u.key, lapses: u.lapses + 1 });
      } else
        this.sql.exec("UPDATE units SET status = 'pending', lapses = lapses + 1, lease_until = NULL, deadline = NULL WHERE key = ?", u.key);
    }
    return out;
  }

  /**
   * Records a result the owner itself decided on (a timeout, a unit out of lapses or tries) through
   * the owner's `report`, which says what the result means; a unit the owner no longer wants is
   * closed all the same.
   */
  settle(key: string, result: UnitResult, report: OwnerReport): void {
    if (!report(key, result)) this.finish(key, JSON.stringify(result), result.error ?? null);
  }

  /**
   * The owner's alarm work: `sweep`, then a webhook rollout whose agent never posted its result
   * scores as a timeout and a unit whose lease lapsed too often is recorded as failed, so the
   * owner goes on.
   */
  sweepOverdue(report: OwnerReport): void {
    const { timedOut, exhausted } = this.sweep();
    for (const key of timedOut)
      this.settle(
        key,
        { data: { answer: "", trajectory: null }, error: "timeout: the policy webhook did not post a result in time" },
        report,
      );
    for (const u of exhausted) this.settle(u.key, { error: `no result after ${u.lapses} lapsed leases` }, report);
  }

  /** When the owner's alarm must next look: the earliest deadline or lease end in flight. */
  nextWake(): number | null {
    return this.sql
      .exec<{ at: number | null }>(
        "SELECT MIN(CASE WHEN status = 'running' THEN MIN(lease_until, deadline) ELSE deadline END) AS at FROM units WHERE status IN ('sent', 'running', 'awaiting')",
      )
      .one().at;
  }
}
