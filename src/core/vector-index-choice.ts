/**
 * Which index answers an agent's similarity queries. The local index keeps one byte per
 * dimension per memory in the Durable Object's memory and scans all of them on every query, so
 * it serves well up to about a hundred thousand memories (≈ 40 MB and a few milliseconds per
 * scan at 384 dimensions); past that an agent on `auto` moves to Vectorize, when it is bound.
 */
export const DEFAULT_LOCAL_INDEX_LIMIT = 100_000;

export type VectorIndexSetting = "local" | "vectorize" | "auto";
export type VectorIndexChoice = "local" | "vectorize";

export interface VectorIndexFacts {
  /** VECTOR_INDEX: `local` (always local), `vectorize` (always, needs the binding) or `auto`. */
  setting: string | undefined;
  /** LOCAL_INDEX_LIMIT, as configured (a positive integer), else the default. */
  limit: string | undefined;
  hasBinding: boolean;
  /** Vectors the agent holds for its current embedding model. */
  memories: number;
  /** The agent already moved to Vectorize; it does not move back when it shrinks, so the index is not rebuilt twice. */
  switched: boolean;
}

/** The limit LOCAL_INDEX_LIMIT sets, or the default when unset or not a positive integer. */
export function localIndexLimit(configured: string | undefined): number {
  const n = Number(configured);
  return configured !== undefined && Number.isInteger(n) && n > 0 ? n : DEFAULT_LOCAL_INDEX_LIMIT;
}

export function chooseVectorIndex(f: VectorIndexFacts): VectorIndexChoice {
  if (!f.hasBinding) return "local";
  if (f.setting === "vectorize") return "vectorize";
  if (f.setting !== "auto") return "local";
  return f.switched || f.memories > localIndexLimit(f.limit) ? "vectorize" : "local";
}
