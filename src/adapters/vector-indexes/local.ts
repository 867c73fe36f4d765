import { Int8Matrix } from "../../core/int8-matrix";
import type { VectorHit, VectorIndex } from "../vector-index";
import int8Scan from "./int8-scan.wasm";

/**
 * In-memory scan, one quantised matrix per kind so a kind-filtered query touches only that kind's
 * rows. It holds one byte per dimension and ranks by the codes alone (see Int8Matrix.topK), so a
 * query reads nothing from storage, and a snapshot of the codes (src/core/ranking) ranks the same.
 * Nothing here awaits: the async signatures exist only to match the port.
 */
export class LocalVectorIndex implements VectorIndex {
  readonly kind = "local" as const;
  readonly dims: number;
  /** An id lives in one matrix: re-upserted under another kind, it moves (there are only a few kinds to look in). */
  private readonly byKind = new Map<string, Int8Matrix>();

  constructor(dims: number) {
    if (!Number.isInteger(dims) || dims <= 0) throw new RangeError(`dims must be a positive integer, got ${dims}`);
    this.dims = dims;
  }

  get size(): number {
    let total = 0;
    for (const m of this.byKind.values()) total += m.size;
    return total;
  }

  /** Typed memory held by the matrices. */
  get bytes(): number {
    let total = 0;
    for (const m of this.byKind.values()) total += m.bytes;
    return total;
  }

  has(id: string): boolean {
    for (const m of this.byKind.values()) if (m.has(id)) return true;
    return false;
  }

  private matrix(kind: string, rows = 0): Int8Matrix {
    let m = this.byKind.get(kind);
    if (!m) this.byKind.set(kind, (m = new Int8Matrix(this.dims, int8Scan, Math.max(64, rows))));
    return m;
  }

  private place(id: string, kind: string): Int8Matrix {
    for (const [k, m] of this.byKind) if (k !== kind) m.remove(id);
    return this.matrix(kind);
  }

  async upsert(items: { id: string; vector: Float32Array; kind: string }[]): Promise<void> {
    // Checked up front so a bad batch changes nothing rather than half of it.
    for (const it of items) {
      if (it.vector.length !== this.dims) throw new RangeError(`vector ${it.id} has ${it.vector.length} dims, index expects ${this.dims}`);
    }
    for (const { id, vector, kind } of items) this.place(id, kind).upsert(id, vector);
  }

  /** Makes room for `rows` more vectors of `kind`, so a cold load handing them over page by page grows each matrix once. */
  reserve(kind: string, rows: number): void {
    const m = this.matrix(kind, rows);
    m.reserve(m.size + rows);
  }

  /** Adds vectors of one kind, new to the index, in their stored quantised form (see Int8Matrix.appendCodes): the cold load, a page at a time. */
  appendCodes(kind: string, ids: readonly string[], codes: Uint8Array): void {
    this.matrix(kind).appendCodes(ids, codes);
  }

  /** The stored codes (see Int8Matrix.codes) of one kind's rows. */
  codes(kind: string): { ids: string[]; codes: Uint8Array } {
    return this.byKind.get(kind)?.codes() ?? { ids: [], codes: new Uint8Array(0) };
  }

  /** The stored codes of those of `ids` that are rows of one kind. */
  codesOf(kind: string, ids: readonly string[]): { ids: string[]; codes: Uint8Array } {
    return this.byKind.get(kind)?.codesOf(ids) ?? { ids: [], codes: new Uint8Array(0) };
  }

  /** The vectors the codes of these ids stand for, whatever their kind. */
  decode(ids: readonly string[]): Map<string, Float32Array> {
    const out = new Map<string, Float32Array>();
    for (const m of this.byKind.values()) for (const [id, v] of m.decode(ids)) out.set(id, v);
    return out;
  }

  async remove(ids: string[]): Promise<void> {
    for (const m of this.byKind.values()) for (const id of ids) m.remove(id);
  }

  /** `only` restricts the scan itself, so the k best allowed rows are found however many nearer rows are not. */
  async query(
    vector: Float32Array,
    opts: { topK: number; minSim: number; kind?: string; only?: ReadonlySet<string> },
  ): Promise<VectorHit[]> {
    if (vector.length !== this.dims) throw new RangeError(`query has ${vector.length} dims, index expects ${this.dims}`);
    const only = opts.only;
    const filter = only ? (id: string) => only.has(id) : undefined;
    const scan = (m: Int8Matrix) => m.topK(vector, opts.topK, opts.minSim, "codes", { filter });
    if (opts.kind !== undefined) {
      const m = this.byKind.get(opts.kind);
      return m ? scan(m) : [];
    }
    // Top k of each kind contains the global top k, so merging per-kind heads is exact.
    const all: VectorHit[] = [];
    for (const m of this.byKind.values()) all.push(...scan(m));
    all.sort((a, b) => b.sim - a.sim || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return all.slice(0, Math.max(0, Math.floor(opts.topK)));
  }
}
