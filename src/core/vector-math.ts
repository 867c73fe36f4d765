/**
 * Dense-vector helpers and the in-memory similarity index used by the local vector store.
 * Everything here is synchronous and allocation-light: retrieval scans the whole matrix on
 * every query, so the inner loop is what decides latency.
 */

/** Scales `v` to unit length in place and returns it. A zero (or non-finite-norm) vector is left as is. */
export function l2normalize(v: Float32Array): Float32Array {
  let sumSq = 0;
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    sumSq += x * x;
  }
  if (sumSq === 0 || !Number.isFinite(sumSq)) return v;
  const inv = 1 / Math.sqrt(sumSq);
  for (let i = 0; i < v.length; i++) v[i] = v[i]! * inv;
  return v;
}

/** Cosine similarity; 0 when either vector is zero, because "no signal" must not rank as similar. */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new RangeError(`dimension mismatch: ${a.length} vs ${b.length}`);
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    ab += x * y;
    aa += x * x;
    bb += y * y;
  }
  if (aa === 0 || bb === 0) return 0;
  return ab / Math.sqrt(aa * bb);
}

/** The dot product of `q` with the `dims` values of `data` from `base`. */
export function dotAt(data: Float32Array, base: number, q: Float32Array, dims: number): number {
  // Four independent accumulators let the JIT overlap the multiply-adds.
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let j = 0;
  const dims4 = dims - (dims % 4);
  for (; j < dims4; j += 4) {
    s0 += data[base + j]! * q[j]!;
    s1 += data[base + j + 1]! * q[j + 1]!;
    s2 += data[base + j + 2]! * q[j + 2]!;
    s3 += data[base + j + 3]! * q[j + 3]!;
  }
  for (; j < dims; j++) s0 += data[base + j]! * q[j]!;
  return s0 + s1 + s2 + s3;
}

export interface Hit {
  id: string;
  sim: number;
}

/** Orders hits best first; equal similarities fall back to id so results do not depend on storage order. */
export function better(simA: number, idA: string, simB: number, idB: string): boolean {
  return simA > simB || (simA === simB && idA < idB);
}

/**
 * N unit vectors of a fixed dimensionality in one contiguous Float32Array, addressed by string id.
 * Rows are dense (no holes): removal moves the last row into the freed slot, so scans never skip.
 */
export class VectorMatrix {
  readonly dims: number;
  private data: Float32Array;
  private ids: string[] = [];
  private rowOf = new Map<string, number>();

  constructor(dims: number, initialCapacity = 64) {
    if (!Number.isInteger(dims) || dims <= 0) throw new RangeError(`dims must be a positive integer, got ${dims}`);
    this.dims = dims;
    this.data = new Float32Array(Math.max(1, Math.floor(initialCapacity)) * dims);
  }

  get size(): number {
    return this.ids.length;
  }

  get capacity(): number {
    return this.data.length / this.dims;
  }

  has(id: string): boolean {
    return this.rowOf.has(id);
  }

  /** Stores a normalised copy of `vec`; the caller's array is never modified. */
  upsert(id: string, vec: Float32Array | ArrayLike<number>): void {
    if (vec.length !== this.dims) throw new RangeError(`expected ${this.dims} dims, got ${vec.length}`);
    let row = this.rowOf.get(id);
    if (row === undefined) {
      row = this.ids.length;
      if (row >= this.capacity) this.grow();
      this.ids.push(id);
      this.rowOf.set(id, row);
    }
    const slot = this.data.subarray(row * this.dims, (row + 1) * this.dims);
    slot.set(vec);
    l2normalize(slot);
  }

  remove(id: string): boolean {
    const row = this.rowOf.get(id);
    if (row === undefined) return false;
    const last = this.ids.length - 1;
    if (row !== last) {
      const lastId = this.ids[last]!;
      this.data.copyWithin(row * this.dims, last * this.dims, (last + 1) * this.dims);
      this.ids[row] = lastId;
      this.rowOf.set(lastId, row);
    }
    // Zero the vacated row so stale values can never leak into a later upsert's reads.
    this.data.fill(0, last * this.dims, (last + 1) * this.dims);
    this.ids.pop();
    this.rowOf.delete(id);
    return true;
  }

  /** A copy of the stored (normalised) vector. */
  get(id: string): Float32Array | undefined {
    const row = this.rowOf.get(id);
    if (row === undefined) return undefined;
    return this.data.slice(row * this.dims, (row + 1) * this.dims);
  }

  /**
   * The k most similar stored vectors with sim ≥ minSim, best first (ties by id ascending).
   * The query is normalised on a copy, so sims are cosines. `filter` runs only for rows that
   * would enter the result, which keeps a costly filter off the hot path.
   */
  topK(query: Float32Array, k: number, minSim: number, filter?: (id: string) => boolean): Hit[] {
    if (query.length !== this.dims) throw new RangeError(`expected ${this.dims} dims, got ${query.length}`);
    const n = this.ids.length;
    const cap = Math.min(Math.floor(k), n);
    if (!(cap > 0)) return [];
    const q = l2normalize(Float32Array.from(query));

    // Min-heap of the current best `cap` rows: heap[0] is the weakest, the one to evict.
    const heapSim = new Float64Array(cap);
    const heapRow = new Int32Array(cap);
    let heapLen = 0;
    const ids = this.ids;
    const data = this.data;
    const dims = this.dims;

    for (let row = 0, base = 0; row < n; row++, base += dims) {
      const sim = dotAt(data, base, q, dims);

      if (!(sim >= minSim)) continue;
      if (heapLen === cap && !better(sim, ids[row]!, heapSim[0]!, ids[heapRow[0]!]!)) continue;
      if (filter && !filter(ids[row]!)) continue;

      if (heapLen < cap) {
        // Sift up.
        let i = heapLen++;
        while (i > 0) {
          const p = (i - 1) >> 1;
          if (!better(heapSim[p]!, ids[heapRow[p]!]!, sim, ids[row]!)) break;
          heapSim[i] = heapSim[p]!;
          heapRow[i] = heapRow[p]!;
          i = p;
        }
        heapSim[i] = sim;
        heapRow[i] = row;
      } else {
        // Replace the root and sift down.
        let i = 0;
        for (;;) {
          const l = 2 * i + 1;
          if (l >= heapLen) break;
          const r = l + 1;
          let w = l;
          if (r < heapLen && better(heapSim[l]!, ids[heapRow[l]!]!, heapSim[r]!, ids[heapRow[r]!]!)) w = r;
          if (!better(sim, ids[row]!, heapSim[w]!, ids[heapRow[w]!]!)) break;
          heapSim[i] = heapSim[w]!;
          heapRow[i] = heapRow[w]!;
          i = w;
        }
        heapSim[i] = sim;
        heapRow[i] = row;
      }
    }

    const out: Hit[] = [];
    for (let i = 0; i < heapLen; i++) out.push({ id: ids[heapRow[i]!]!, sim: heapSim[i]! });
    out.sort((a, b) => (better(a.sim, a.id, b.sim, b.id) ? -1 : better(b.sim, b.id, a.sim, a.id) ? 1 : 0));
    return out;
  }

  private grow(): void {
    const next = new Float32Array(this.data.length * 2);
    next.set(this.data);
    this.data = next;
  }
}
