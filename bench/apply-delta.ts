// What a Worker spends applying one content delta to the snapshot it holds, by library size: a
// generated library of N memories (bench/lib/generated-snapshot.ts), decoded into a SnapshotReader,
// then deltas of one new lesson (the common write) or of an edit, alternately, applied one after another, each followed by a
// ranking as the read that asked for it would do. Reports p50 / p99 of each apply and of the read.
//
//   node node_modules/tsx/dist/cli.mjs bench/apply-delta.ts [--sizes 1000,10000,100000] [--deltas 50]
import { int8ScanWasm } from "../src/core/int8-scan-wasm";
import { encodeCode } from "../src/core/int8-matrix";
import { ftsTerms } from "../src/core/lexical";
import { ftsTermOf } from "../src/core/ranking/fts5-porter";
import { decodeSnapshot, encodeSnapshot } from "../src/core/ranking/snapshot";
import type { ContentDelta } from "../src/core/ranking/snapshot-delta";
import { SnapshotReader } from "../src/core/ranking/snapshot-source";
import { generatedSnapshot } from "./lib/generated-snapshot";
// @ts-expect-error -- plain ESM helper shared with run.mjs, without types
import { experienceText, rng } from "./corpus.mjs";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const DIMS = 100;

// Node compiles WebAssembly from bytes (Workers import the built .wasm instead); the Workers types only know the latter.
const kernel = new (WebAssembly.Module as unknown as new (bytes: Uint8Array) => WebAssembly.Module)(int8ScanWasm());
const r = rng(7);
const vector = () => Float32Array.from({ length: DIMS }, () => r() - 0.5);

const termsOf = (text: string) => {
  const tf = new Map<string, number>();
  for (const w of ftsTerms(text)) {
    const t = ftsTermOf(w) ?? w;
    tf.set(t, (tf.get(t) ?? 0) + 1);
  }
  return tf;
};

/**
 * The delta of one new lesson at `seq`, or of an edit of the lesson `edit` (same id and seq), with
 * the lexical counts the object would send for it.
 */
function oneLesson(reader: SnapshotReader, seq: number, edit?: { id: string; seq: number; text: string }): ContentDelta {
  const s = reader.snapshot;
  const { text, tags } = experienceText(r);
  const tf = termsOf(text);
  const words = ftsTerms(text);
  const table = s.lexical.experience;
  const id = edit?.id ?? `exp_new_${seq}`;
  if (edit) seq = edit.seq;
  const old = edit ? termsOf(edit.text) : new Map<string, number>();
  const touched = new Set([...tf.keys(), ...old.keys()]);
  return {
    contentVersion: s.contentVersion + 1,
    libraryVersion: s.libraryVersion + 1,
    model: s.model,
    dims: s.dims,
    config: s.config,
    signing: s.signing,
    subscriptions: [],
    anyWhen: false,
    removed: [],
    lessons: [
      {
        id,
        seq,
        text,
        q: 0.5,
        tags,
        metadata: {},
        domain: null,
        createdAt: Date.now(),
        lastUsedAt: null,
        probation: false,
        explore: false,
        uses: 0,
      },
    ],
    cases: [],
    vectors: { experience: { ids: [id], codes: encodeCode(vector()) }, case: { ids: [], codes: new Uint8Array(0) } },
    whens: [],
    unembedded: { experience: [], case: [] },
    lexical: {
      experience: {
        rows: table.rows + (edit ? 0 : 1),
        tokens: table.tokens + words.length,
        contentRows: table.contentRows + (edit ? 0 : 1),
        moved: [...touched].map((t) => [t, (tf.has(t) ? 1 : 0) - (old.has(t) ? 1 : 0)]),
        add: [[seq, words.length, [...tf]]],
      },
      case: { rows: s.lexical.case.rows, tokens: s.lexical.case.tokens, contentRows: s.lexical.case.contentRows, moved: [], add: [] },
      when: { rows: 0, tokens: 0, contentRows: null, moved: [], add: [] },
    },
  };
}

console.log("| memories | apply a new lesson p50 / p99 ms | apply an edit p50 / p99 ms | read after p50 / p99 ms | read before ms |");
console.log("|---|---|---|---|---|");
for (const n of arg("--sizes", "1000,10000,100000").split(",").map(Number)) {
  const reader = new SnapshotReader(decodeSnapshot(encodeSnapshot(generatedSnapshot(n, DIMS))), kernel);
  const read = async () => {
    const t = performance.now();
    await reader
      .at(Date.now(), { text: "retry the request after a timeout", vec: vector() })
      .rank({ phase: "pre", lambda: 0.5 } as never, undefined);
    return performance.now() - t;
  };
  await read();
  const before = await read();
  const apply: number[] = [];
  const edits: number[] = [];
  const after: number[] = [];
  let seq = reader.snapshot.lessons.at(-1)!.seq;
  for (let i = 0; i < Number(arg("--deltas", "50")); i++) {
    const lessons = reader.snapshot.lessons;
    const old = i % 2 ? lessons[Math.floor(r() * lessons.length)]! : undefined;
    const d = oneLesson(reader, old ? seq : ++seq, old);
    const t = performance.now();
    reader.applyContent(d);
    (old ? edits : apply).push(performance.now() - t);
    after.push(await read());
  }
  console.log(
    `| ${n.toLocaleString("en")} | ${pct(apply, 0.5).toFixed(2)} / ${pct(apply, 0.99).toFixed(2)} | ${pct(edits, 0.5).toFixed(2)} / ${pct(edits, 0.99).toFixed(2)} | ${pct(after, 0.5).toFixed(2)} / ${pct(after, 0.99).toFixed(2)} | ${before.toFixed(2)} |`,
  );
}
