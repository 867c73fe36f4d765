import type { OpenCall } from "../core/metered-call";
/** Turns text into vectors. `model` identifies the vector space: vectors of different models are never compared. */
export interface Embedder {
  readonly provider: EmbedderSettings["provider"];
  /** Stable identity of the vector space, e.g. `hash:praxis-hash-v1:384` or `openai:text-embedding-3-small`. */
  readonly model: string;
  readonly dims: number;
  /**
   * The cosine at which this model's matches start to be relevant, used unless the agent configures
   * its own: each model spreads similarities differently, so one number cannot serve them all.
   */
  readonly similarityThreshold: number;
  /** `meter`: embedders that spend a paid endpoint's tokens open a ledger row per request through it. */
  embed(texts: string[], meter?: EmbeddingMeter): Promise<Float32Array[]>;
}

/**
 * Opens the usage-ledger row of one embedding request at its estimate (input tokens), and may refuse
 * it (the tenant's budget); the row is settled with the count the provider reports.
 */
export type EmbeddingMeter = (model: string, estimateTokens: number) => Promise<OpenCall>;

/** Calibrated on OpenAI and BGE embeddings, where related texts score above 0.3 and unrelated ones below. */
export const DEFAULT_SIMILARITY_THRESHOLD = 0.3;

export interface EmbedderSettings {
  provider: "hash" | "semantic" | "openai" | "workers-ai";
  model?: string;
  dims?: number;
}
