/**
 * The compact in-memory index behind the local vector store: one signed byte per dimension and a
 * scale per vector, scanned sixteen lanes at a time by a WebAssembly SIMD kernel (see
 * int8-scan-wasm.ts), then the best few hundred re-scored exactly against the vectors their codes
 * stand for. A quarter of the memory of float32 rows, and several times faster to scan; the
 * re-score ranks by the codes' cosine with the (unquantised) query, which is what every reader of
 * the codes computes, the agent's object and a Worker serving a snapshot of them alike (its error
 * against the float vectors is a few thousandths, which the bench measures as recall@20). Ties
 * are broken by id at every step, so the answer does not depend on the order rows were added in.
 */
import { better, l2normalize, type Hit } from "./vector-math";

/**
 * Rows re-scored exactly per query, at least (and at least twice k): the first pass only has to put
 * the true top k among them. The int8 error is a few thousandths of a cosine, so on the bench
 * corpus 30 rows already held the exact top 20 at every size; each extra row costs a float read
 * from SQLite and a pass over its dimensions.
 */
export const DEFAULT_RESCORE = 40;
/** Codes stay in [-127, 127] so the kernel's pairwise i16 sums (2·127²) cannot overflow. */
const CODE_MAX = 127;
const PAGE = 65_536;
const SCALE_BYTES = 4;

/** Quantises `v` (any length, normalised on a copy) into `codes`; returns the scale: v ≈ scale · codes / |v|. */
export function quantize(v: Float32Array | ArrayLike<number>, codes: Int8Array): number {
  const u = l2normalize(new Float32Array(v));
  let max = 0;
  for (let i = 0; i < u.length; i++) max = Math.max(max, Math.abs(u[i]!));
  if (!(max > 0)) {
    codes.fill(0, 0, u.length);
    return 0;
  }
  const scale = max / CODE_MAX;
  for (let i = 0; i < u.length; i++) codes[i] = Math.round(u[i]! / scale);
  return scale;
}

/** The stored form of one vector: `dims` codes then the float32 scale (little-endian), as in SQLite's `vectors.code`. */
export function encodeCode(v: Float32Array | ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(v.length + SCALE_BYTES);
  const scale = quantize(v, new Int8Array(out.buffer, 0, v.length));
  new DataView(out.buffer).setFloat32(v.length, scale, true);
  return out;
}

/**
 * Where the float vectors live; called with the few hundred ids that survive the first pass.
 * `"codes"`: the matrix's own codes stand for them (see decode), read by row.
 */
export type ExactVectors = ((ids: readonly string[]) => ReadonlyMap<string, Float32Array>) | "codes";

interface Kernel {
  memory: WebAssembly.Memory;
  scan: (query: number, data: number, scales: number, rows: number, blocks: number, out: number) => void;
}

/**
 * N quantised vectors in one WebAssembly memory, laid out as [query | rows | scales | scores].
 * Rows are dense: removal moves the last row into the freed slot, so the kernel never skips.
 */
export class Int8Matrix {
  readonly dims: number;
  /** Bytes per row: `dims` rounded up to the kernel's 16 lanes, zero-padded. */
  private readonly stride: number;
  private readonly kernel: Kernel;
  private cap = 0;
  private ids: string[] = [];
  /** The row of each id, or null after a bulk append until something asks by id (see `rowOf`). */
  private rowIndex: Map<string, number> | null = new Map();

  constructor(dims: number, module: WebAssembly.Module, initialCapacity = 64) {
    if (!Number.isInteger(dims) || dims <= 0) throw new RangeError(`dims must be a positive integer, got ${dims}`);
    this.dims = dims;
    this.stride = Math.ceil(dims / 16) * 16;
    this.kernel = new WebAssembly.Instance(module).exports as unknown as Kernel;
    this.reserve(Math.max(1, Math.floor(initialCapacity)));
  }

  get size(): number {
    return this.ids.length;
  }

  /** Bytes this matrix holds in typed memory (the WebAssembly memory), for footprint reports. */
  get bytes(): number {
    return this.kernel.memory.buffer.byteLength;
  }

  /** Built on first use after `appendCodes`, so a cold load never hashes ids that no query asks for. */
  private get rowOf(): Map<string, number> {
    if (!this.rowIndex) {
      this.rowIndex = new Map();
      for (let row = 0; row < this.ids.length; row++) this.rowIndex.set(this.ids[row]!, row);
    }
    return this.rowIndex;
  }

  has(id: string): boolean {
    return this.rowOf.has(id);
  }

  private get dataAt(): number {
    return this.stride;
  }

  private get scalesAt(): number {
    return this.dataAt + this.cap * this.stride;
  }

  private get scoresAt(): number {
    return this.scalesAt + this.cap * SCALE_BYTES;
  }

  /** Makes room for `rows` rows; growing moves only the scales (rows stay where they are). */
  reserve(rows: number): void {
    if (rows <= this.cap) return;
    const oldScales = this.scalesAt;
    const oldCap = this.cap;
    this.cap = rows;
    const need = this.scoresAt + rows * SCALE_BYTES;
    const mem = this.kernel.memory;
    if (need > mem.buffer.byteLength) mem.grow(Math.ceil((need - mem.buffer.byteLength) / PAGE));
    new Uint8Array(mem.buffer).copyWithin(this.scalesAt, oldScales, oldScales + oldCap * SCALE_BYTES);
  }

  private slot(id: string): number {
    let row = this.rowOf.get(id);
    if (row === undefined) {
      row = this.ids.length;
      if (row >= this.cap) this.reserve(this.cap * 2);
      this.ids.push(id);
      this.rowOf.set(id, row);
    }
    return row;
  }

  upsert(id: string, vec: Float32Array | ArrayLike<number>): void {
    if (vec.length !== this.dims) throw new RangeError(`expected ${this.dims} dims, got ${vec.length}`);
    const row = this.slot(id);
    const buf = this.kernel.memory.buffer;
    new Float32Array(buf, this.scalesAt, this.cap)[row] = quantize(vec, new Int8Array(buf, this.dataAt + row * this.stride, this.dims));
  }

  /**
   * Appends rows already in their stored form (see encodeCode), back to back in `codes` as SQLite
   * holds a page of them: the cold load, one call per page. The ids must be new to the matrix and
   * distinct, as the pages' slots are.
   */
  appendCodes(ids: readonly string[], codes: Uint8Array): void {
    const width = this.dims + SCALE_BYTES;
    if (codes.length !== ids.length * width)
      throw new RangeError(`expected ${ids.length} codes of ${width} bytes, got ${codes.length} bytes`);
    const first = this.ids.length;
    if (first + ids.length > this.cap) this.reserve(Math.max(first + ids.length, this.cap * 2));
    const buf = this.kernel.memory.buffer;
    const bytes = new Uint8Array(buf);
    const scales = new Float32Array(buf, this.scalesAt, this.cap);
    const view = new DataView(codes.buffer, codes.byteOffset, codes.byteLength);
    for (let i = 0; i < ids.length; i++) {
      bytes.set(codes.subarray(i * width, i * width + this.dims), this.dataAt + (first + i) * this.stride);
      scales[first + i] = view.getFloat32(i * width + this.dims, true);
    }
    for (const id of ids) {
      // An index already built grows with the rows: a delta's few new rows must not cost a rebuild of all.
      this.rowIndex?.set(id, this.ids.length);
      this.ids.push(id);
    }
  }

  /** The vectors these rows' codes stand for (scale · codes), for the exact re-score; ids not held are absent. */
  decode(ids: readonly string[]): Map<string, Float32Array> {
    const found = ids.filter((id) => this.rowOf.has(id));
    return this.decodeRows(
      found.map((id) => this.rowOf.get(id)!),
      found,
    );
  }

  /**
   * decode by row: what a scan's re-score uses, so the first query after a cold load does not
   * hash every id (see rowOf) to find rows it already holds.
   */
  private decodeRows(rows: ArrayLike<number>, ids: readonly string[]): Map<string, Float32Array> {
    const buf = this.kernel.memory.buffer;
    const scales = new Float32Array(buf, this.scalesAt, this.cap);
    const out = new Map<string, Float32Array>();
    for (let n = 0; n < ids.length; n++) {
      const row = rows[n]!;
      const codes = new Int8Array(buf, this.dataAt + row * this.stride, this.dims);
      const scale = scales[row]!;
      const v = new Float32Array(this.dims);
      for (let i = 0; i < this.dims; i++) v[i] = codes[i]! * scale;
      out.set(ids[n]!, v);
    }
    return out;
  }

  /** Every row in its stored form (see encodeCode), back to back, with the ids in the same order. */
  codes(): { ids: string[]; codes: Uint8Array } {
    return this.codesOf(this.ids);
  }

  /** The rows of those of `ids` held here, in their stored form, back to back, with their ids in the same order. */
  codesOf(ids: readonly string[]): { ids: string[]; codes: Uint8Array } {
    const width = this.dims + SCALE_BYTES;
    const held = ids.filter((id) => this.rowOf.has(id));
    const out = new Uint8Array(held.length * width);
    const view = new DataView(out.buffer);
    const buf = this.kernel.memory.buffer;
    const bytes = new Uint8Array(buf);
    const scales = new Float32Array(buf, this.scalesAt, this.cap);
    held.forEach((id, i) => {
      const row = this.rowOf.get(id)!;
      out.set(bytes.subarray(this.dataAt + row * this.stride, this.dataAt + row * this.stride + this.dims), i * width);
      view.setFloat32(i * width + this.dims, scales[row]!, true);
    });
    return { ids: held, codes: out };
  }

  remove(id: string): boolean {
    const row = this.rowOf.get(id);
    if (row === undefined) return false;
    const last = this.ids.length - 1;
    const buf = this.kernel.memory.buffer;
    const bytes = new Uint8Array(buf);
    const scales = new Float32Array(buf, this.scalesAt, this.cap);
    if (row !== last) {
      const lastId = this.ids[last]!;
      bytes.copyWithin(this.dataAt + row * this.stride, this.dataAt + last * this.stride, this.dataAt + (last + 1) * this.stride);
      scales[row] = scales[last]!;
      this.ids[row] = lastId;
      this.rowOf.set(lastId, row);
    }
    bytes.fill(0, this.dataAt + last * this.stride, this.dataAt + (last + 1) * this.stride);
    scales[last] = 0;
    this.ids.pop();
    this.rowOf.delete(id);
    return true;
  }

  /**
   * The k best rows by exact cosine with sim ≥ minSim, best first (ties by id), as a float scan
   * would rank them. The first pass keeps the `rescore` best rows by approximate similarity,
   * skipping only rows whose approximation plus its error bound is below minSim; `exact` supplies
   * their float vectors for the final ranking. `filter` runs only for rows that would enter the
   * first pass, which keeps a costly filter off the hot path.
   */
  topK(
    query: Float32Array,
    k: number,
    minSim: number,
    exact: ExactVectors,
    opts: { rescore?: number; filter?: (id: string) => boolean } = {},
  ): Hit[] {
    if (query.length !== this.dims) throw new RangeError(`expected ${this.dims} dims, got ${query.length}`);
    const n = this.ids.length;
    const want = Math.min(Math.floor(k), n);
    if (!(want > 0)) return [];
    const cap = Math.min(n, Math.max(want, opts.rescore ?? Math.max(DEFAULT_RESCORE, 2 * want)));
    const q = l2normalize(new Float32Array(query));
    const buf = this.kernel.memory.buffer;
    const qCodes = new Int8Array(buf, 0, this.stride);
    qCodes.fill(0);
    const qScale = quantize(q, qCodes);
    if (qScale === 0) return [];
    this.kernel.scan(0, this.dataAt, this.scalesAt, n, this.stride / 16, this.scoresAt);

    // |q·x − approx| ≤ |x|₁·qScale/2 + |q̂|₁·xScale/2, and |x|₁ ≤ √dims for a unit x.
    let qL1 = 0;
    for (let i = 0; i < this.dims; i++) qL1 += Math.abs(qCodes[i]!);
    const qErr = (Math.sqrt(this.dims) * qScale) / 2;
    const xErrPerScale = (qL1 * qScale) / 2;
    const scores = new Float32Array(buf, this.scoresAt, n);
    const scales = new Float32Array(buf, this.scalesAt, n);
    const filter = opts.filter;
    const ids = this.ids;

    // Min-heap of the best `cap` approximate scores: heap[0] is the weakest, and of equal scores the
    // larger id is the weaker, so which rows enter does not depend on their order. The weakest score
    // is also kept in a local once the heap is full, so the common case (a row too weak to enter)
    // reads no heap and compares no id.
    const heapScore = new Float64Array(cap);
    const heapRow = new Int32Array(cap);
    let len = 0;
    let weakest = -Infinity;
    /** Whether heap entry `a` is weaker than score `s` of row `row`. */
    const weaker = (a: number, s: number, row: number) => heapScore[a]! < s || (heapScore[a]! === s && ids[heapRow[a]!]! > ids[row]!);
    for (let row = 0; row < n; row++) {
      const s = scores[row]! * qScale;
      if (s < weakest || (s === weakest && !weaker(0, s, row))) continue;
      if (s + qErr + xErrPerScale * scales[row]! < minSim) continue;
      if (filter && !filter(ids[row]!)) continue;
      let i: number;
      if (len < cap) {
        i = len++;
        while (i > 0) {
          const p = (i - 1) >> 1;
          if (weaker(p, s, row)) break;
          heapScore[i] = heapScore[p]!;
          heapRow[i] = heapRow[p]!;
          i = p;
        }
      } else {
        i = 0;
        for (;;) {
          const l = 2 * i + 1;
          if (l >= len) break;
          const w =
            l + 1 < len &&
            (heapScore[l + 1]! < heapScore[l]! || (heapScore[l + 1]! === heapScore[l]! && ids[heapRow[l + 1]!]! > ids[heapRow[l]!]!))
              ? l + 1
              : l;
          if (!weaker(w, s, row)) break;
          heapScore[i] = heapScore[w]!;
          heapRow[i] = heapRow[w]!;
          i = w;
        }
      }
      heapScore[i] = s;
      heapRow[i] = row;
      if (len === cap) weakest = heapScore[0]!;
    }

    const rows = heapRow.subarray(0, len);
    const candidates = Array.from(rows, (row) => ids[row]!);
    const vectors = exact === "codes" ? this.decodeRows(rows, candidates) : exact(candidates);
    const out: Hit[] = [];
    for (const id of candidates) {
      const v = vectors.get(id);
      if (!v) continue;
      const sim = cosineWithUnit(q, v);
      if (sim >= minSim) out.push({ id, sim });
    }
    out.sort((a, b) => (better(a.sim, a.id, b.sim, b.id) ? -1 : better(b.sim, b.id, a.sim, a.id) ? 1 : 0));
    return out.slice(0, want);
  }
}

/** cos(q, v) for a unit q in one pass over v, without copying or normalising it first. */
function cosineWithUnit(q: Float32Array, v: Float32Array): number {
  let dot = 0;
  let sumSq = 0;
  for (let i = 0; i < q.length; i++) {
    const x = v[i]!;
    dot += x * q[i]!;
    sumSq += x * x;
  }
  return sumSq > 0 && Number.isFinite(sumSq) ? dot / Math.sqrt(sumSq) : 0;
}
