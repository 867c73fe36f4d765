/**
 * Which index answers an agent's similarity queries. The local index keeps one byte per
 * dimension per memory in the Durable Object's memory and scans all of them on every query, so
 * it serves well up to about a hundred thousand memories (≈ 40 MB and a few milliseconds per
 * scan at 384 dimensions); past that an agent on `auto` moves to Vectorize, when it is bound.
 */
export const DEFAULT_LOCAL_INDEX_LIMIT = 100_000;

export const VECTOR_INDEX_SETTINGS = ["local", "vectorize", "auto"] as const;
export type VectorIndexSetting = (typeof VECTOR_INDEX_SETTINGS)[number];
export type VectorIndexChoice = "local" | "vectorize";

export interface VectorIndexFacts {
  /** VECTOR_INDEX: `local` (always local), `vectorize` (always, needs the binding) or `auto`. */
  setting: VectorIndexSetting;
  /** LOCAL_INDEX_LIMIT: memories past which an `auto` agent moves to Vectorize. */
  limit: number;
  hasBinding: boolean;
  /** Vectors the agent holds for its current embedding model. */
  memories: number;
  /** The agent already moved to Vectorize; it does not move back when it shrinks, so the index is not rebuilt twice. */
  switched: boolean;
}

export function chooseVectorIndex(f: VectorIndexFacts): VectorIndexChoice {
  if (!f.hasBinding) return "local";
  if (f.setting === "vectorize") return "vectorize";
  if (f.setting !== "auto") return "local";
  return f.switched || f.memories > f.limit ? "vectorize" : "local";
}
