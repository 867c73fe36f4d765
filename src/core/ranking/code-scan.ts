/**
 * A scan over stored int8 codes (see encodeCode) of directions, each with a factor its cosine is
 * multiplied by: the usage centroids (factor: the centroid's length times its count discount, at
 * most 1) and the lessons' `when` vectors (factor 1). The agent's object keeps one per kind of
 * signal; a snapshot of the same codes scans the same way in a Worker.
 */
import { Int8Matrix } from "../int8-matrix";
import { decodeQuery } from "../usage-memory";
import { cosine } from "../vector-math";

export class CodeScan {
  private matrix: Int8Matrix | null = null;
  private readonly codes = new Map<string, Uint8Array>();
  private readonly factors = new Map<string, number>();

  constructor(private readonly kernel: WebAssembly.Module) {}

  /** A code of another size than the scan's first is kept out: it belongs to another embedder. */
  set(id: string, code: Uint8Array, factor = 1): void {
    const dir = decodeQuery(code);
    this.matrix ??= new Int8Matrix(dir.length, this.kernel, 64);
    if (this.matrix.dims !== dir.length) return;
    this.matrix.upsert(id, dir);
    this.codes.set(id, code);
    this.factors.set(id, factor);
  }

  delete(id: string): void {
    this.matrix?.remove(id);
    this.codes.delete(id);
    this.factors.delete(id);
  }

  get size(): number {
    return this.codes.size;
  }

  /** One entry as stored, if there is one. */
  entry(id: string): { id: string; code: Uint8Array; factor: number } | undefined {
    const code = this.codes.get(id);
    return code && { id, code, factor: this.factors.get(id)! };
  }

  /** Every entry as stored: what a snapshot carries. */
  entries(): { id: string; code: Uint8Array; factor: number }[] {
    return [...this.codes].map(([id, code]) => ({ id, code, factor: this.factors.get(id)! }));
  }

  /** The entries whose scaled similarity reaches `threshold`, among the `k` closest directions. */
  similar(query: Float32Array, threshold: number, k: number): Map<string, number> {
    const out = new Map<string, number>();
    if (!this.matrix?.size || this.matrix.dims !== query.length) return out;
    const exact = (ids: readonly string[]) => new Map(ids.map((id) => [id, decodeQuery(this.codes.get(id)!)] as const));
    for (const h of this.matrix.topK(query, k, threshold, exact)) {
      const sim = h.sim * this.factors.get(h.id)!;
      if (sim >= threshold) out.set(h.id, sim);
    }
    return out;
  }

  /** The scaled similarity of one entry, or undefined when there is none of the query's size. */
  similarity(query: Float32Array, id: string): number | undefined {
    const code = this.codes.get(id);
    return code && code.length - 4 === query.length ? cosine(query, decodeQuery(code)) * this.factors.get(id)! : undefined;
  }

  /** The scaled similarities of those of `ids` that have an entry. */
  similarities(query: Float32Array, ids: readonly string[]): Map<string, number> {
    const out = new Map<string, number>();
    for (const id of ids) {
      const sim = this.similarity(query, id);
      if (sim !== undefined) out.set(id, sim);
    }
    return out;
  }
}
