/**
 * Phase B and the answer of a retrieval, shared by the agent's object and the edge: the same
 * candidates, re-ranker state and time give the same items, order and scores wherever it runs.
 */
import { rank } from "../scoring";
import { contributions, featuresOf, type RerankerState } from "../reranker";
import type { MemoryFilter, MemoryKind } from "../memory-types";
import type { RetrievedItem } from "../retrieval-types";
import type { AgentConfig } from "../agent-config";
import { findCandidates, learnedOnly, WHEN_WEIGHT, type CandidateInfo, type CandidateSource } from "./candidates";

/**
 * How far apart, in base relevance, two candidates may be for learned signals (Q, what rewards
 * taught usage memory, the re-ranker) to put the one that matches less above the other. Base
 * relevance is 1 for the best match in every channel and 0 for an item that matches nowhere on
 * its own, so a reward can decide among answers of like quality but never lift an item past the
 * ones that answer the query (one reward could otherwise put an unrelated lesson first).
 */
export const LEARNED_MARGIN = 0.25;

export interface RankedCandidate {
  id: string;
  sim: number;
  q: number;
  simZ: number;
  qZ: number;
  lambda: number;
  score: number;
  info: CandidateInfo;
  features: number[];
  learned: number | null;
  /** How well its own content matches the query (baseRelevance), in [0, 1]. */
  base: number;
}

/**
 * Each candidate's base relevance: in each channel that found anything, how far its own content
 * scores towards the best candidate's (the vector channel from the similarity threshold up, the
 * lexical one from no shared word up), averaged over those channels. A best candidate that is
 * itself a weak match does not set the scale: the similarity threshold above it, or a BM25 of one
 * (one rare word shared), count as a full match. Unlike the fused rank it keeps the distance
 * between a close match and a distant one, and nothing learned enters it.
 */
export function baseRelevance(infos: readonly CandidateInfo[], threshold: number): Map<string, number> {
  const channels = [
    { score: (i: CandidateInfo) => Math.max(0, Math.max(i.sim, i.when) - threshold), full: threshold },
    { score: (i: CandidateInfo) => i.lexical + WHEN_WEIGHT * i.whenLexical, full: 1 },
  ]
    .map((c) => ({ ...c, best: Math.max(0, ...infos.map(c.score)) }))
    .filter((c) => c.best > 0);
  const part = (c: (typeof channels)[number], i: CandidateInfo) => Math.min(1, c.score(i) / Math.max(c.best, c.full));
  return new Map(infos.map((i) => [i.id, channels.length ? channels.reduce((a, c) => a + part(c, i), 0) / channels.length : 0]));
}

/**
 * The candidates best score first, except that learned signals never carry one past another that
 * the item's own content ranks above it (the fusion of `content`) with a base relevance more than
 * LEARNED_MARGIN higher: each place goes to the best score among the candidates no such one still
 * waits ahead of, for the first `take` places. The first of the content order always qualifies,
 * and without learned signals the score order is the content order, so the fixed fusion stands.
 */
function withinMargin(ranked: RankedCandidate[], take: number): RankedCandidate[] {
  const byContent = [...ranked].sort((a, b) => b.info.content - a.info.content || (a.id < b.id ? -1 : 1));
  const placed = new Set<string>();
  const out: RankedCandidate[] = [];
  while (out.length < Math.min(take, ranked.length)) {
    // The best base relevance still waiting ahead of each candidate in the content order.
    const ahead = new Map<string, number>();
    let best = Number.NEGATIVE_INFINITY;
    for (const r of byContent) {
      if (placed.has(r.id)) continue;
      ahead.set(r.id, best);
      best = Math.max(best, r.base);
    }
    const next = ranked.find((r) => !placed.has(r.id) && ahead.get(r.id)! - r.base <= LEARNED_MARGIN)!;
    placed.add(next.id);
    out.push(next);
  }
  return out;
}

/** The agent's λ for a phase (or the one the request gives). */
export function lambdaOf(
  config: Pick<AgentConfig, "lambda">,
  req: { phase?: keyof AgentConfig["lambda"] | undefined; lambda?: number | undefined },
): number {
  return req.lambda ?? (req.phase ? config.lambda[req.phase] : config.lambda.default);
}

/**
 * Phase B over the fused relevance: every candidate already passed a channel's gate, so none is
 * cut here. Once the agent's re-ranker has learned enough, its contribution is added to each
 * candidate's score before the top k2 are taken; until then the order is the fixed fusion's.
 */
export function rankCandidates(
  infos: readonly CandidateInfo[],
  opts: { lambda: number; k1: number; k2: number; threshold: number; reranker: RerankerState; now: number },
): RankedCandidate[] {
  const { lambda, k1, k2, threshold, now } = opts;
  const byId = new Map(infos.map((i) => [i.id, i]));
  // The rewards that taught a memory its usage also raised its Q: a memory found only through
  // usage ranks on that relevance with a neutral Q, so the same rewards do not count twice, and a
  // flood of them cannot carry one memory to the top of queries its own content does not match.
  const found = infos.filter((i) => !learnedOnly(i, threshold));
  const neutralQ = found.length ? found.reduce((a, i) => a + i.q, 0) / found.length : 0;
  const candidates = infos.map((i) => ({ id: i.id, sim: i.relevance, q: learnedOnly(i, threshold) ? neutralQ : i.q }));
  const base = baseRelevance(infos, threshold);
  const ranked: RankedCandidate[] = rank(candidates, { lambda, k1, k2: k1, threshold: 0 }).map((r) => {
    const info = byId.get(r.id)!;
    return { ...r, q: info.q, info, features: featuresOf({ ...info, q: r.q }, now), learned: null, base: base.get(r.id)! };
  });
  const learned = contributions(
    opts.reranker,
    ranked.map((r) => r.features),
  );
  if (learned) {
    ranked.forEach((r, i) => {
      r.learned = learned[i]!;
      r.score += learned[i]!;
    });
    ranked.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  }
  return withinMargin(ranked, Math.max(0, Math.min(k2, k1)));
}

/** What a ranking needs besides its source: the query, the knobs the request or the agent set, the learned state, the time. */
export interface RankingRequest {
  query: { text: string; vec: Float32Array };
  kinds: readonly MemoryKind[];
  k1: number;
  k2: number;
  lambda: number;
  threshold: number;
  filter?: MemoryFilter | undefined;
  reranker: RerankerState;
  now: number;
}

/**
 * Phase A then phase B: the ranked items and how many candidates phase A found. `widen` adds
 * candidates found elsewhere (the lessons of subscribed libraries) to phase A's before ranking.
 */
export async function rankFrom(
  source: CandidateSource,
  req: RankingRequest,
  widen?: (own: CandidateInfo[]) => Promise<CandidateInfo[]>,
): Promise<{ candidates: number; ranked: RankedCandidate[] }> {
  const own = await findCandidates(source, req.query, req.kinds, req.k1, req.threshold, req.now, req.filter);
  const infos = widen ? await widen(own) : own;
  return { candidates: Math.min(req.k1, infos.length), ranked: rankCandidates(infos, req) };
}

/** The ranked items as a retrieval answers them. */
export function retrievedItems(ranked: readonly RankedCandidate[]): RetrievedItem[] {
  return ranked.map((r) => {
    const info = r.info;
    return {
      id: info.shared?.id ?? r.id,
      ...(info.shared ? { libraryId: info.shared.libraryId } : {}),
      kind: info.kind,
      label: info.label,
      probation: info.probation,
      text: info.text,
      metadata: info.metadata,
      sim: info.sim,
      lexical: info.lexical,
      relevance: r.sim,
      baseRelevance: r.base,
      simZ: r.simZ,
      q: r.q,
      qZ: r.qZ,
      lambda: r.lambda,
      score: r.score,
      match: info.match,
      channels: info.channels,
      signals: { usage: info.usage, phrases: info.learned, when: info.when, whenLexical: info.whenLexical, learned: r.learned },
    };
  });
}
