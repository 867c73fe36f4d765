import type { MemoryKind, RewardRequest } from "../../src/core/memory-types";
import { decodeQuery } from "../../src/core/usage-memory";
import type { Features } from "../../src/core/reranker";
import type { MemoryContext } from "./context";
import type { RerankerStore } from "./reranker-store";
import type { UsageCredit, UsageMemory } from "./usage-memory";

interface ShownItem {
  id: string;
  kind: MemoryKind;
  citeOnly?: boolean;
  f?: number[];
}

export interface RewardOutcome {
  reward: number;
  /** Items the reward moved (cited ones when the agent cited, else every item it applied to). */
  updated: ReadonlySet<string>;
  /** Whether the agent said which items it used. */
  cited: boolean;
}

/**
 * What a reward of a retrieval teaches the retriever (issue 22), inside the reward's transaction:
 * usage memory learns the retrieval's query on the items the reward moved (each cited item gets
 * the whole reward, else the items share it), and the re-ranker takes one step with those items
 * as positives (negatives when the reward was negative) and the shown-but-uncited ones as
 * negatives. A reward of memory ids has no query and teaches neither; a zero reward says nothing.
 */
export function learnFromReward(ctx: MemoryContext, usage: UsageMemory, reranker: RerankerStore, req: RewardRequest, outcome: RewardOutcome): void {
  if (!outcome.reward || (!req.retrievalId && !req.episodeId)) return;
  const rows = req.retrievalId
    ? ctx.sql.exec<{ query: string; query_code: ArrayBuffer | null; items: string }>("SELECT query, query_code, items FROM retrievals WHERE id = ?", req.retrievalId).toArray()
    : ctx.sql.exec<{ query: string; query_code: ArrayBuffer | null; items: string }>("SELECT query, query_code, items FROM retrievals WHERE episode_id = ? ORDER BY at", req.episodeId!).toArray();
  const examples: { f: Features; label: 0 | 1 }[] = [];
  for (const row of rows) {
    const shown = (JSON.parse(row.items) as ShownItem[]).filter((i) => !i.citeOnly || outcome.updated.has(i.id));
    const moved = shown.filter((i) => outcome.updated.has(i.id));
    if (!moved.length) continue;
    const share = outcome.cited ? outcome.reward : outcome.reward / moved.length;
    const credits: UsageCredit[] = moved.map((i) => ({ id: i.id, kind: i.kind, credit: share }));
    usage.learn(row.query, row.query_code ? decodeQuery(new Uint8Array(row.query_code)) : null, credits);
    for (const i of shown) if (i.f) examples.push({ f: i.f, label: outcome.updated.has(i.id) && outcome.reward > 0 ? 1 : 0 });
  }
  reranker.learn(examples);
}
