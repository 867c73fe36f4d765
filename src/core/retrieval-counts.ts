/**
 * Use counters of token retrievals, accumulated in a Worker isolate and applied to each
 * agent's object in batches: a memory's `retrieved` count and `lastUsedAt`, and the agent's count
 * of token retrievals per day (analytics' `retrievals`). A retrieval that is recorded by the object
 * (one in an episode, or too large for a token) counts there, with its record, and never here.
 */

import type { MemoryKind } from "./memory-types";
import { toHex } from "./encoding";

/** Counters (one per item, one per agent) held per isolate at most; past this, new counts are dropped (and counted as dropped). */
export const MAX_PENDING_ITEMS = 10_000;
/** An agent's batch is sent at once when it holds this many items, whatever its age. */
export const FLUSH_AT_ITEMS = 500;

const DAY_MS = 86_400_000;
export const dayOf = (at: number) => Math.floor(at / DAY_MS);

/** What one flush applies to one agent; `id` makes a retried flush apply once. */
export interface CounterBatch {
  id: string;
  items: { id: string; kind: MemoryKind; n: number; lastUsedAt: number }[];
  /** Token retrievals per day (days since the epoch, UTC). */
  retrievals: { day: number; n: number }[];
}

/** What one answered read served, as the counters see it. */
export interface Served {
  /** Items that count as used: shown for the query (not merely as part of the whole library). */
  items: readonly { id: string; kind: MemoryKind }[];
  /** A read-scoped key moves no counter; its retrieval still counts in the agent's total. */
  readOnly: boolean;
}

interface Pending {
  items: Map<string, { kind: MemoryKind; n: number; lastUsedAt: number }>;
  days: Map<number, number>;
  /** When the oldest count not yet sent arrived. */
  since: number;
  /** Batches whose sending failed, kept with their id so the object applies each once. */
  unsent: CounterBatch[];
}

const newBatchId = () => toHex(crypto.getRandomValues(new Uint8Array(12)));
/** What an agent's pending counts take of the isolate's budget: its item counters, plus one for the agent. */
const entries = (p: Pending) => 1 + p.items.size + p.unsent.reduce((n, b) => n + b.items.length, 0);

/** The isolate's pending counters, per agent (the object's name), bounded by MAX_PENDING_ITEMS. */
export class RetrievalCounts {
  private readonly agents = new Map<string, Pending>();
  private size = 0;
  /** Counts refused because the buffer was full. */
  dropped = 0;

  /** Adds one read; returns how many counters the agent now has pending. */
  add(agent: string, served: Served, at: number): number {
    let p = this.agents.get(agent);
    if (!p) {
      if (this.size >= MAX_PENDING_ITEMS) {
        this.dropped += 1 + (served.readOnly ? 0 : served.items.length);
        return 0;
      }
      this.agents.set(agent, (p = { items: new Map(), days: new Map(), since: at, unsent: [] }));
      this.size++;
    }
    const day = dayOf(at);
    p.days.set(day, (p.days.get(day) ?? 0) + 1);
    for (const item of served.readOnly ? [] : served.items) {
      const c = p.items.get(item.id);
      if (c) {
        c.n++;
        c.lastUsedAt = Math.max(c.lastUsedAt, at);
      } else if (this.size < MAX_PENDING_ITEMS) {
        p.items.set(item.id, { kind: item.kind, n: 1, lastUsedAt: at });
        this.size++;
      } else this.dropped++;
    }
    return entries(p);
  }

  /** Agents whose oldest pending count is at least `windowMs` old at `now`. */
  due(now: number, windowMs: number): string[] {
    return [...this.agents].filter(([, p]) => now - p.since >= windowMs).map(([agent]) => agent);
  }

  /** Agents with counts pending. */
  held(): string[] {
    return [...this.agents.keys()];
  }

  /** When the agent's oldest pending count arrived, if it has any. */
  since(agent: string): number | null {
    return this.agents.get(agent)?.since ?? null;
  }

  /** Takes everything pending for the agent: earlier unsent batches first, then a new one. */
  take(agent: string): CounterBatch[] {
    const p = this.agents.get(agent);
    if (!p) return [];
    this.agents.delete(agent);
    this.size -= entries(p);
    const fresh: CounterBatch = {
      id: newBatchId(),
      items: [...p.items].map(([id, c]) => ({ id, ...c })),
      retrievals: [...p.days].map(([day, n]) => ({ day, n })),
    };
    return [...p.unsent, ...(fresh.items.length || fresh.retrievals.length ? [fresh] : [])];
  }

  /** Puts back a batch whose sending failed, to go first next time; dropped when there is no room. */
  putBack(agent: string, batch: CounterBatch, at: number): void {
    let p = this.agents.get(agent);
    if (this.size + batch.items.length + (p ? 0 : 1) > MAX_PENDING_ITEMS) {
      this.dropped += batch.items.length + 1;
      return;
    }
    if (!p) {
      this.agents.set(agent, (p = { items: new Map(), days: new Map(), since: at, unsent: [] }));
      this.size++;
    }
    p.since = Math.min(p.since, at);
    p.unsent.push(batch);
    this.size += batch.items.length;
  }

  /** Counters pending across agents (the budget MAX_PENDING_ITEMS bounds). */
  get pending(): number {
    return this.size;
  }
}
