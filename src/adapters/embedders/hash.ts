import { HASH_DIMS, HASH_EMBEDDER_MODEL, hashEmbed } from "../../core/hash-embedder";
import type { Embedder } from "../embedder";

/**
 * Measured, not chosen (`npm run bench:quality` on bench/retrieval-set, recorded in
 * bench/RESULTS.md): the highest gate for the vector channel under which hybrid retrieval leaves no
 * query without an answer and keeps its best recall. Feature hashing scores paraphrases far below
 * neural models, so their 0.3 hid relevant lessons (the README's own 429 example scored 0.277).
 */
export const HASH_SIMILARITY_THRESHOLD = 0.1;

/**
 * The offline default. The dimension is part of the model id because a 384-dim and a 256-dim
 * hash vector of the same text live in different spaces and must never be compared.
 */
export class HashEmbedder implements Embedder {
  readonly provider = "hash" as const;
  readonly similarityThreshold = HASH_SIMILARITY_THRESHOLD;
  readonly model: string;
  readonly dims: number;

  constructor(opts: { dims?: number } = {}) {
    const dims = opts.dims ?? HASH_DIMS;
    if (!Number.isInteger(dims) || dims <= 0) throw new RangeError(`hash embedder dims must be a positive integer, got ${dims}`);
    this.dims = dims;
    this.model = `hash:${HASH_EMBEDDER_MODEL}:${dims}`;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => hashEmbed(t, this.dims));
  }
}
