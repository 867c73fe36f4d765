/**
 * The per-agent learned re-ranker: logistic regression over a handful of retrieval signals,
 * trained online (one SGD step per item of each rewarded retrieval). It only re-orders the
 * candidates the fixed fusion found, and only once it has seen MIN_UPDATES rewards.
 */
import { z } from "zod";

export const FEATURES = ["vectorSim", "usageSim", "textBm25", "learnedPhrase", "q", "recency", "isCase", "whenSim", "whenBm25"] as const;
export type FeatureName = (typeof FEATURES)[number];
export type Features = readonly number[];

/**
 * Signals of how well an item matches the query, by its content or by what it was used for. Their
 * weights are never negative (projected after every step, and read as 0 in a state saved before): the model may learn how much a match matters, never to prefer items that match less.
 */
const MONOTONE: ReadonlySet<FeatureName> = new Set(["vectorSim", "usageSim", "textBm25", "learnedPhrase", "whenSim", "whenBm25"]);
const MONOTONE_AT = FEATURES.map((name) => MONOTONE.has(name));
const projected = (w: number, i: number) => (MONOTONE_AT[i] ? Math.max(0, w) : w);
const project = (weights: readonly number[]) => weights.map(projected);

/** Rewards of a retrieval seen before the model may re-order anything. */
export const MIN_UPDATES = 20;
const LEARNING_RATE = 0.1;
const L2 = 1e-3;
/** How far (in z-scored units of the fused score) the model may move an item, at most, either way. */
export const RERANK_WEIGHT = 2;
const RECENCY_HALF_LIFE_MS = 14 * 24 * 3600_000;

export const RerankerStateSchema = z.object({
  // A state saved before a feature existed lacks its weight: it starts at 0.
  weights: z
    .array(z.number())
    .max(FEATURES.length)
    .transform((w) => [...w, ...Array<number>(FEATURES.length - w.length).fill(0)]),
  bias: z.number(),
  updates: z.number().int().min(0),
  positives: z.number().int().min(0),
  negatives: z.number().int().min(0),
});
export type RerankerState = z.infer<typeof RerankerStateSchema>;

export const emptyReranker = (): RerankerState => ({ weights: FEATURES.map(() => 0), bias: 0, updates: 0, positives: 0, negatives: 0 });

/** BM25 is unbounded; squashing keeps one long query from dominating a gradient step. */
const squash = (x: number) => (x > 0 ? x / (1 + x) : 0);

export interface SignalInput {
  sim: number;
  usage: number;
  lexical: number;
  learned: number;
  when?: number;
  whenLexical?: number;
  q: number;
  lastUsedAt: number | null;
  kind: "experience" | "case";
}

/** Features of one candidate, each roughly in [-1, 1]. */
export function featuresOf(s: SignalInput, now: number): number[] {
  const recency = s.lastUsedAt === null ? 0 : 0.5 ** (Math.max(0, now - s.lastUsedAt) / RECENCY_HALF_LIFE_MS);
  return [
    s.sim,
    s.usage,
    squash(s.lexical),
    squash(s.learned),
    s.q,
    recency,
    s.kind === "case" ? 1 : 0,
    s.when ?? 0,
    squash(s.whenLexical ?? 0),
  ].map((x) => Math.round(x * 1e4) / 1e4);
}

export function logit(state: RerankerState, f: Features): number {
  let z = state.bias;
  for (let i = 0; i < FEATURES.length; i++) z += projected(state.weights[i]!, i) * (f[i] ?? 0);
  return z;
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** One SGD step per example; returns a new state. Positives and negatives are balanced by weighting, since most shown items go uncited. */
export function train(state: RerankerState, examples: readonly { f: Features; label: 0 | 1 }[]): RerankerState {
  if (!examples.length) return state;
  const pos = examples.filter((e) => e.label === 1).length;
  const neg = examples.length - pos;
  const weights = project(state.weights);
  let bias = state.bias;
  for (const e of examples) {
    const balance = e.label === 1 ? examples.length / (2 * Math.max(1, pos)) : examples.length / (2 * Math.max(1, neg));
    let z = bias;
    for (let i = 0; i < FEATURES.length; i++) z += weights[i]! * (e.f[i] ?? 0);
    const g = (sigmoid(z) - e.label) * balance;
    for (let i = 0; i < FEATURES.length; i++)
      weights[i] = projected(weights[i]! - LEARNING_RATE * (g * (e.f[i] ?? 0) + L2 * weights[i]!), i);
    bias -= LEARNING_RATE * g;
  }
  return { weights, bias, updates: state.updates + 1, positives: state.positives + pos, negatives: state.negatives + neg };
}

export const rerankerActive = (state: RerankerState) => state.updates >= MIN_UPDATES && state.positives > 0 && state.negatives > 0;

/**
 * Each candidate's learned contribution to its score: how much more likely than the average
 * candidate the model finds it to be cited in a success, times RERANK_WEIGHT. An unsure model
 * moves little; null while the model is inactive, which leaves the fixed fusion's order untouched.
 */
export function contributions(state: RerankerState, features: readonly Features[]): number[] | null {
  if (!rerankerActive(state) || !features.length) return null;
  const p = features.map((f) => sigmoid(logit(state, f)));
  const mean = p.reduce((a, x) => a + x, 0) / p.length;
  return p.map((x) => (x - mean) * RERANK_WEIGHT);
}

/** The state as shown to users: weights by feature name. */
export function describeReranker(state: RerankerState) {
  return {
    active: rerankerActive(state),
    minUpdates: MIN_UPDATES,
    updates: state.updates,
    positives: state.positives,
    negatives: state.negatives,
    bias: state.bias,
    weights: Object.fromEntries(project(state.weights).map((w, i) => [FEATURES[i], w])) as Record<FeatureName, number>,
  };
}

export const RetrieverStateSchema = z.object({
  libraryVersion: z
    .number()
    .int()
    .describe("The library version these weights belong to; a rollback restores the weights of the version it returns to"),
  reranker: z.object({
    active: z.boolean().describe("Whether the model re-orders candidates (after minUpdates rewards with both positives and negatives)"),
    minUpdates: z.number().int(),
    updates: z.number().int().describe("Rewards of retrievals the model has learned from"),
    positives: z.number().int(),
    negatives: z.number().int(),
    bias: z.number(),
    weights: z.record(z.enum(FEATURES), z.number()).describe("Logistic-regression weight of each signal"),
  }),
  usage: z.object({
    memories: z.number().int().describe("Memories that have learned phrases or a usage centroid"),
    phrases: z.number().int(),
    pendingPhrases: z
      .number()
      .int()
      .describe("Learned phrases waiting for the LLM safety review; nothing matches them until it admits them"),
    centroids: z.number().int(),
  }),
  snapshot: z
    .object({
      contentVersion: z
        .number()
        .int()
        .describe("Counts changes to what retrieval reads as content (lessons, cases, vectors, config); a new one is a new snapshot"),
      learnSeq: z
        .number()
        .int()
        .describe("Counts changes rewards and uses made (Q, counts, usage memory, the re-ranker), which reach Workers as deltas"),
      bytes: z
        .number()
        .int()
        .nullable()
        .describe(
          "Size of the snapshot built for this content version, published to Workers unless over their limit (for a library whose texts and vectors alone are over it, what they take); null until a Worker asked for one",
        ),
    })
    .describe('The read model Workers serve this agent\'s reads from (docs/concepts.md, "Reads at the edge")'),
});
export type RetrieverState = z.infer<typeof RetrieverStateSchema>;
