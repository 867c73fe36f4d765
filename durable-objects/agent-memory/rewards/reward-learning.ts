import type { MemoryKind } from "../../../src/core/memory-types";
import { decodeQuery, learnablePhrase, MAX_TEACH_PER_HOUR } from "../../../src/core/usage-memory";
import type { Features } from "../../../src/core/reranker";
import type { RetrievalClaims } from "../../../src/core/retrieval-token";
import type { Exploration } from "../../../src/core/probation";
import type { MemoryContext } from "../storage/context";
import type { RerankerStore } from "../retrieval/reranker-store";
import type { UsageCredit, UsageMemory } from "../retrieval/usage-memory";
import type { Retrieval } from "../retrieval/retrieval";

interface ShownItem {
  id: string;
  kind: MemoryKind;
  label?: string | null;
  citeOnly?: boolean;
  f?: number[];
  libraryId?: string;
}

/** A retrieval as stored: its query, what it showed, and the key that made it. */
export interface RetrievalRow extends Record<string, SqlStorageValue> {
  id: string;
  query: string;
  query_code: ArrayBuffer | null;
  items: string;
  key_id: string | null;
  episode_id: string | null;
  read_only: number;
  trial: string | null;
}

/** A retrieval a reward credits, recorded (a row) or carried by its token (claims). */
export interface CreditedRetrieval {
  id: string;
  /** What the query may teach usage memory as words (`learnablePhrase`). */
  phrase: string | null;
  queryCode: Uint8Array | null;
  items: ShownItem[];
  keyId: string | null;
  episodeId: string | null;
  /** Made by a read-scoped key: its outcome is no evidence about the lessons it showed. */
  readOnly: boolean;
  /** The lessons on probation it explored and those that matched without being shown. */
  trial: Exploration | null;
}

export const creditedOfRow = (row: RetrievalRow): CreditedRetrieval => ({
  id: row.id,
  phrase: learnablePhrase(row.query),
  queryCode: row.query_code ? new Uint8Array(row.query_code) : null,
  items: JSON.parse(row.items) as ShownItem[],
  keyId: row.key_id,
  episodeId: row.episode_id,
  readOnly: row.read_only === 1,
  trial: row.trial ? (JSON.parse(row.trial) as Exploration) : null,
});

export const creditedOfClaims = (c: RetrievalClaims): CreditedRetrieval => ({
  id: c.id,
  phrase: c.phrase,
  queryCode: c.queryCode,
  items: c.items,
  keyId: c.keyId,
  episodeId: null,
  readOnly: c.readOnly,
  trial: c.trial,
});

export interface RewardOutcome {
  reward: number;
  /** Items the reward moved (cited ones when the agent cited, else every item it applied to). */
  updated: ReadonlySet<string>;
  /** Whether the agent said which items it used. */
  cited: boolean;
  /** The rewarding key, when the reward names one; else each retrieval's own key teaches. */
  teacher?: string | undefined;
}

const HOUR_MS = 3600_000;

/**
 * Whether `key` may still teach `itemId` this hour, counting the lesson if so: at most
 * MAX_TEACH_PER_HOUR positive credits per key and memory, so no one key floods a memory's usage.
 */
function mayTeach(ctx: MemoryContext, key: string, itemId: string, hour: number): boolean {
  const n =
    ctx.sql.exec<{ n: number }>("SELECT n FROM teach_counts WHERE key_id = ? AND item_id = ? AND hour = ?", key, itemId, hour).toArray()[0]
      ?.n ?? 0;
  if (n >= MAX_TEACH_PER_HOUR) return false;
  ctx.sql.exec(
    "INSERT INTO teach_counts (key_id, item_id, hour, n) VALUES (?, ?, ?, 1) ON CONFLICT (key_id, item_id, hour) DO UPDATE SET n = n + 1",
    key,
    itemId,
    hour,
  );
  return true;
}

/**
 * What a reward of retrievals teaches the retriever, inside the reward's transaction:
 * usage memory learns each retrieval's query on the items the reward moved (each cited item gets
 * the whole reward, else the items share it), and the re-ranker takes one step with those items
 * as positives (negatives when the reward was negative) and the shown-but-uncited ones as
 * negatives. A reward of memory ids has no retrieval and teaches neither; a zero reward says
 * nothing. A positive lesson past the key's hourly cap for that memory teaches neither channel;
 * weakening is never capped. Each memory takes at most one retrieval's lesson per reward.
 */
export function learnFromReward(
  ctx: MemoryContext,
  usage: UsageMemory,
  reranker: RerankerStore,
  retrievals: readonly CreditedRetrieval[],
  outcome: RewardOutcome,
): void {
  if (!outcome.reward || !retrievals.length) return;
  const hour = Math.floor(ctx.now() / HOUR_MS);
  ctx.sql.exec("DELETE FROM teach_counts WHERE hour < ?", hour);
  const examples: { f: Features; label: 0 | 1 }[] = [];
  // One reward is one piece of evidence, however many of an episode's retrievals showed a memory:
  // usage memory counts an association only once several rewards back it (evidenceOf).
  const taught = new Set<string>();
  for (const row of retrievals) {
    const teacher = outcome.teacher ?? row.keyId ?? "";
    const shown = row.items.filter((i) => !i.citeOnly || outcome.updated.has(i.id));
    const moved = shown.filter((i) => outcome.updated.has(i.id));
    if (!moved.length) continue;
    const share = outcome.cited ? outcome.reward : outcome.reward / moved.length;
    const capped = new Set(share > 0 ? moved.filter((i) => !mayTeach(ctx, teacher, i.id, hour)).map((i) => i.id) : []);
    // A shared lesson's usage channel would be the library's to keep; the re-ranker below is the agent's own.
    const credits: UsageCredit[] = moved
      .filter((i) => !capped.has(i.id) && !i.libraryId && !taught.has(i.id))
      .map((i) => ({ id: i.id, kind: i.kind, credit: share }));
    for (const c of credits) taught.add(c.id);
    usage.learn(row.phrase, row.queryCode ? decodeQuery(row.queryCode) : null, credits);
    for (const i of shown)
      if (i.f && !capped.has(i.id)) examples.push({ f: i.f, label: outcome.updated.has(i.id) && outcome.reward > 0 ? 1 : 0 });
  }
  reranker.learn(examples);
}

/**
 * What a reward asks of retrieval: teach its learned channels, move the agent's own Q of a shared
 * lesson (null without subscriptions, or for a lesson it no longer holds), and drop the caches a
 * rolled-back reward left ahead of storage. Utility holds this, not retrieval's parts.
 */
export interface RewardedRetrieval {
  learn(retrievals: readonly CreditedRetrieval[], outcome: RewardOutcome): void;
  rewardShared(
    t: { libraryId: string; lessonId: string; citeOnly: boolean },
    how: { r: number; alpha: number; now: number; cited: boolean | null },
  ): { qBefore: number; q: number } | null;
  forgetCaches(): void;
}

/** Retrieval as a reward sees it (built once per object in agent-memory/object/startup.ts). */
export const rewardedRetrieval = (ctx: MemoryContext, retrieval: Pick<Retrieval, "usage" | "reranker" | "shared">): RewardedRetrieval => ({
  learn: (retrievals, outcome) => learnFromReward(ctx, retrieval.usage, retrieval.reranker, retrievals, outcome),
  rewardShared: (t, how) => retrieval.shared?.reward(t, how) ?? null,
  forgetCaches: () => {
    retrieval.usage.forgetCache();
    retrieval.reranker.forgetCache();
  },
});
