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
  embed(texts: string[]): Promise<Float32Array[]>;
}

/** Calibrated on OpenAI and BGE embeddings, where related texts score above 0.3 and unrelated ones below. */
export const DEFAULT_SIMILARITY_THRESHOLD = 0.3;

export interface EmbedderSettings {
  provider: "hash" | "semantic" | "openai" | "workers-ai";
  model?: string;
  dims?: number;
}
