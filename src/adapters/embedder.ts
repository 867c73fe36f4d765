/** Turns text into vectors. `model` identifies the vector space: vectors of different models are never compared. */
export interface Embedder {
  readonly provider: "hash" | "openai" | "workers-ai";
  /** Stable identity of the vector space, e.g. `hash:praxis-hash-v1:384` or `openai:text-embedding-3-small`. */
  readonly model: string;
  readonly dims: number;
  embed(texts: string[]): Promise<Float32Array[]>;
}

export interface EmbedderSettings {
  provider: "hash" | "openai" | "workers-ai";
  model?: string;
  dims?: number;
}
