/**
 * Phase B and the answer of a retrieval, shared by the agent's object and the edge: the same
 * candidates, re-ranker state and time give the same items, order and scores wherever it runs.
 */
import { rank } from "../scoring";
import { contributions, featuresOf, type RerankerState } from "../reranker";
import type { MemoryFilter, MemoryKind, RetrievedItem } from "../memory-types";
import type { AgentConfig } from "../agent-config";
import { findCandidates, learnedOnly, type CandidateInfo, type CandidateSource } from "./candidates";

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
  const ranked: RankedCandidate[] = rank(candidates, { lambda, k1, k2: k1, threshold: 0 }).map((r) => {
    const info = byId.get(r.id)!;
    return { ...r, q: info.q, info, features: featuresOf({ ...info, q: r.q }, now), learned: null };
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
  return ranked.slice(0, Math.max(0, Math.min(k2, k1)));
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
