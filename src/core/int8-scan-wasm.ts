/**
 * The bytes of the int8 scan kernel, a WebAssembly module written out instruction by instruction
 * (no toolchain: the repository builds nothing but TypeScript). Workers refuse to compile
 * WebAssembly from bytes at run time, so `npm run build:scan-wasm` writes these bytes to
 * src/adapters/vector-indexes/int8-scan.wasm, which the Worker imports as a compiled module;
 * a test keeps the file equal to this source.
 *
 * The module exports its memory and one function:
 *
 *   scan(query, data, scales, rows, blocks, out)
 *
 * For each of `rows` rows of `blocks` × 16 int8 codes starting at `data`, it writes
 * f32(Σ code·queryCode) × scale[row] to `out` (f32 per row). Sixteen lanes at a time: the
 * products are widened to i16 (extmul), the low and high halves added (codes are kept in
 * [-127, 127], so 2·127² fits in i16), then widened pairwise into four i32 accumulators.
 */

const SIMD = 0xfd;
const I32 = 0x7f;
const V128 = 0x7b;

const op = {
  block: 0x02,
  loop: 0x03,
  end: 0x0b,
  br_if: 0x0d,
  local_get: 0x20,
  local_set: 0x21,
  local_tee: 0x22,
  i32_const: 0x41,
  i32_eqz: 0x45,
  i32_add: 0x6a,
  i32_sub: 0x6b,
  f32_load: 0x2a,
  f32_store: 0x38,
  f32_mul: 0x94,
  f32_convert_i32_s: 0xb2,
} as const;

/** Unsigned LEB128. */
function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

const simd = (code: number) => [SIMD, ...uleb(code)];
const v128 = {
  load: (align: number) => [...simd(0x00), align, 0],
  const0: [...simd(0x0c), ...new Array<number>(16).fill(0)],
  i32x4ExtractLane: (lane: number) => [...simd(0x1b), lane],
  i32x4ExtaddPairwiseI16x8S: simd(0x7e),
  i16x8Add: simd(0x8e),
  i16x8ExtmulLowI8x16S: simd(0x9c),
  i16x8ExtmulHighI8x16S: simd(0x9d),
  i32x4Add: simd(0xae),
};

const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];
const name = (s: string) => [...uleb(s.length), ...[...s].map((c) => c.charCodeAt(0))];

// Parameters 0..5, then locals.
const Q = 0,
  DATA = 1,
  SCALES = 2,
  ROWS = 3,
  BLOCKS = 4,
  OUT = 5;
const QP = 6,
  B = 7,
  ACC = 8,
  V = 9,
  W = 10;
const get = (i: number) => [op.local_get, i];
const set = (i: number) => [op.local_set, i];
const tee = (i: number) => [op.local_tee, i];
const addConst = (i: number, n: number) => [...get(i), op.i32_const, ...uleb(n), op.i32_add, ...set(i)];

function scanBody(): number[] {
  const laneSum = [
    ...get(ACC),
    ...v128.i32x4ExtractLane(0),
    ...get(ACC),
    ...v128.i32x4ExtractLane(1),
    op.i32_add,
    ...get(ACC),
    ...v128.i32x4ExtractLane(2),
    op.i32_add,
    ...get(ACC),
    ...v128.i32x4ExtractLane(3),
    op.i32_add,
  ];
  const inner = [
    op.loop,
    0x40,
    ...get(DATA),
    ...v128.load(0),
    ...set(V),
    ...get(QP),
    ...v128.load(0),
    ...set(W),
    ...get(V),
    ...get(W),
    ...v128.i16x8ExtmulLowI8x16S,
    ...get(V),
    ...get(W),
    ...v128.i16x8ExtmulHighI8x16S,
    ...v128.i16x8Add,
    ...v128.i32x4ExtaddPairwiseI16x8S,
    ...get(ACC),
    ...v128.i32x4Add,
    ...set(ACC),
    ...addConst(DATA, 16),
    ...addConst(QP, 16),
    ...get(B),
    op.i32_const,
    1,
    op.i32_sub,
    ...tee(B),
    op.br_if,
    0,
    op.end,
  ];
  const row = [
    op.loop,
    0x40,
    ...v128.const0,
    ...set(ACC),
    ...get(Q),
    ...set(QP),
    ...get(BLOCKS),
    ...set(B),
    ...inner,
    ...get(OUT),
    ...laneSum,
    op.f32_convert_i32_s,
    ...get(SCALES),
    op.f32_load,
    2,
    0,
    op.f32_mul,
    op.f32_store,
    2,
    0,
    ...addConst(OUT, 4),
    ...addConst(SCALES, 4),
    ...get(ROWS),
    op.i32_const,
    1,
    op.i32_sub,
    ...tee(ROWS),
    op.br_if,
    0,
    op.end,
  ];
  // Nothing to do for no rows or no blocks; the loops below run at least once.
  const guard = [op.block, 0x40, ...get(ROWS), op.i32_eqz, op.br_if, 0, ...get(BLOCKS), op.i32_eqz, op.br_if, 0, ...row, op.end];
  const locals = vec([
    [2, I32],
    [3, V128],
  ]);
  const code = [...locals, ...guard, op.end];
  return [...uleb(code.length), ...code];
}

/** The module's bytes; deterministic, so the committed .wasm can be checked against it. */
export function int8ScanWasm(): Uint8Array {
  const type = vec([[0x60, ...vec([[I32], [I32], [I32], [I32], [I32], [I32]]), ...vec([])]]);
  const bytes = [
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, type),
    ...section(3, vec([[0]])),
    ...section(5, vec([[0x00, 1]])),
    ...section(
      7,
      vec([
        [...name("memory"), 0x02, 0],
        [...name("scan"), 0x00, 0],
      ]),
    ),
    ...section(10, vec([scanBody()])),
  ];
  return new Uint8Array(bytes);
}
