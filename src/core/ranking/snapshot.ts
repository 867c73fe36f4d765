/**
 * The read model of one agent: what retrieval and the prompt block need, as the agent's object
 * publishes it per version for Workers to rank from (snapshot-source.ts). Content (texts, labels,
 * filters' fields, vectors, lexical statistics, config) is versioned by `contentVersion`; what
 * rewards and uses teach (Q, probation, counts, last use, usage memory, the re-ranker) moves on
 * `learnSeq` and travels as a LearnDelta. Encoded as one byte string: a JSON header, then the
 * binary sections (codes, postings) it points into.
 */
import type { DecayConfigSchema, EmbedderChoiceSchema, LambdaTableSchema } from "../agent-config";
import type { MemoryKind } from "../memory-types";
import type { RerankerState } from "../reranker";
import type { Metadata } from "../served-fields";
import type { LearnedPhrase } from "../usage-memory";
import { type Bm25Table, PostingArray, type PostingList } from "./bm25";
import type { Subscription } from "../shared-lessons";
import type { z } from "zod";
import { PackedCase, PackedLesson, PackedTexts } from "./snapshot-items";
import { concat, VarintReader, VarintWriter } from "../varint";

/** Bumped whenever the encoding or what it holds changes, so a Worker never reads a snapshot of another layout. */
export const SNAPSHOT_FORMAT = 4;

export interface SnapshotItem {
  id: string;
  seq: number;
  text: string;
  q: number;
  tags: string[];
  metadata: Metadata;
  createdAt: number;
  lastUsedAt: number | null;
  /** Times retrieved (the `retrieved` count), which sets how fast its learned phrases fade. */
  uses: number;
}

export interface SnapshotLesson extends SnapshotItem {
  label: string;
  domain: string | null;
  probation: boolean;
  /** On probation and explored: a share of the prompts it matches show it (src/core/probation.ts). */
  explore: boolean;
}

export interface SnapshotCase extends SnapshotItem {
  /** It carries an answer or a trace of what was tried, so the prompt block may show it. */
  informative: boolean;
}

/** Rows of stored codes (see encodeCode), back to back, with their ids in the same order. */
export interface CodeRows {
  ids: string[];
  codes: Uint8Array;
}

export interface CodeEntry {
  id: string;
  code: Uint8Array;
  factor: number;
}

export interface LexicalTable extends Bm25Table {
  /**
   * Rows of the FTS table's content table, every status, counted up to LEXICAL_MAX_TERM_DOCS + 1:
   * what decides whether every query word is matched.
   */
  contentRows: number;
}

export interface RetrievalConfig {
  k1: number;
  k2: number;
  lambda: z.infer<typeof LambdaTableSchema>;
  /** The agent's similarity threshold, or the one its embedder is calibrated for. */
  threshold: number;
  decay: z.infer<typeof DecayConfigSchema>;
  embedder: z.infer<typeof EmbedderChoiceSchema> | null;
  /** How long a retrieval can be rewarded (`retention.retrievalsDays`; null: for good), which a token's expiry follows. */
  retrievalsDays: number | null;
  /** The Q a shared lesson ranks on until this agent's own rewards move it. */
  defaultQ: number;
}

/** What this agent learned of one shared lesson that ranking reads: its own Q and last use (src/core/shared-lessons.ts). */
export interface SharedLessonRank {
  libraryId: string;
  id: string;
  q: number;
  lastUsedAt: number | null;
}

/** The secret a Worker signs retrieval tokens with (src/core/retrieval-token.ts), as the agent's object holds it. */
export interface SigningSecret {
  id: string;
  key: Uint8Array;
}

export interface ReadModelSnapshot {
  format: number;
  /** The agent's incarnation: a snapshot of an agent deleted and created again is never taken for the new one's. */
  incarnation: string;
  contentVersion: number;
  learnSeq: number;
  libraryVersion: number;
  builtAt: number;
  /** The embedder the vectors belong to; a Worker whose query embedding is another serves nothing from this. */
  model: string;
  dims: number;
  config: RetrievalConfig;
  lessons: SnapshotLesson[];
  cases: SnapshotCase[];
  vectors: Record<MemoryKind, CodeRows>;
  /** Active items without a vector of the model, with the text they are matched by meanwhile. */
  unembedded: Record<MemoryKind, { id: string; text: string }[]>;
  centroids: Record<MemoryKind, CodeEntry[]>;
  whens: CodeEntry[];
  anyWhen: boolean;
  usageLearned: boolean;
  phrases: { id: string; kind: MemoryKind; phrases: LearnedPhrase[] }[];
  lexical: { experience: LexicalTable; case: LexicalTable; when: Bm25Table };
  reranker: RerankerState;
  signing: SigningSecret;
  /**
   * The shared libraries the agent subscribes to, in the order its object asks them; a Worker ranks
   * each library's own snapshot beside this one.
   */
  subscriptions: Subscription[];
  /** The agent's own Q and last use of the shared lessons it was shown. */
  shared: SharedLessonRank[];
}

/** What rewards and uses changed since a learnSeq: the items, the usage memories, the re-ranker. */
export interface LearnDelta {
  learnSeq: number;
  libraryVersion: number;
  items: { id: string; kind: MemoryKind; q: number; probation: boolean; explore: boolean; uses: number; lastUsedAt: number | null }[];
  /** Usage memories as they are now; `kind: null` for one that is gone. */
  usage: { id: string; kind: MemoryKind | null; phrases: LearnedPhrase[] | null; centroid: { code: Uint8Array; factor: number } | null }[];
  usageLearned: boolean;
  reranker: RerankerState;
  /** The agent's state of shared lessons as it is now; `q: null` for one it forgot (an ended subscription). */
  shared: (Omit<SharedLessonRank, "q"> & { q: number | null })[];
}

/** A term list with each term's row count, then each term's searchable postings and each searchable row's length, as varints. */
function encodeTable(t: Bm25Table): { terms: string[]; rows: number; tokens: number; blob: Uint8Array } {
  const terms = [...t.docs.keys()];
  const w = new VarintWriter();
  for (const term of terms) w.varint(t.docs.get(term)!);
  for (const term of terms) {
    const p = [...(t.postings.get(term) ?? [])].sort((a, b) => a[0] - b[0]);
    w.varint(p.length);
    let last = 0;
    for (const [row, tf] of p) {
      w.varint(row - last);
      w.varint(tf);
      last = row;
    }
  }
  const lengths = [...t.lengths].sort((a, b) => a[0] - b[0]);
  w.varint(lengths.length);
  let last = 0;
  for (const [row, n] of lengths) {
    w.varint(row - last);
    w.varint(n);
    last = row;
  }
  return { terms, rows: t.rows, tokens: t.tokens, blob: w.done() };
}

function decodeTable(h: { terms: string[]; rows: number; tokens: number }, blob: Uint8Array): Bm25Table {
  const r = new VarintReader(blob);
  const docs = new Map<string, number>();
  for (const term of h.terms) docs.set(term, r.varint());
  const postings = new Map<string, PostingList>();
  // Each list is already what a PostingArray holds: a view of the table's bytes, decoded by no one.
  for (const term of h.terms) {
    const n = r.varint();
    if (n) postings.set(term, PostingArray.read(r, n));
  }
  const lengths = new Map<number, number>();
  let row = 0;
  for (let i = r.varint(); i > 0; i--) {
    row += r.varint();
    lengths.set(row, r.varint());
  }
  return { rows: h.rows, tokens: h.tokens, docs, postings, lengths };
}

/** `probation` as stored (PROBATION in src/core/probation.ts): 0 trusted, 1 explored, 2 held out of prompts. */
type LessonRow = [string, number, string, number, string[], Metadata, string | null, number, number | null, 0 | 1 | 2, number];
type CaseRow = [string, number, number, string[], Metadata, number, number | null, number, 0 | 1];

/** The snapshot as bytes: a 4-byte header length, the JSON header, then the binary sections it names by offset. */
export function encodeSnapshot(s: ReadModelSnapshot): Uint8Array {
  const blobs: Uint8Array[] = [];
  let offset = 0;
  const blob = (b: Uint8Array): [number, number] => {
    blobs.push(b);
    const at: [number, number] = [offset, b.length];
    offset += b.length;
    return at;
  };
  const entries = (list: readonly CodeEntry[]) => ({
    ids: list.map((e) => e.id),
    factors: list.map((e) => e.factor),
    codes: blob(concat(list.map((e) => e.code))),
    widths: list.map((e) => e.code.length),
  });
  const table = (t: Bm25Table) => {
    const { blob: b, ...h } = encodeTable(t);
    return { ...h, blob: blob(b) };
  };
  const texts = PackedTexts.pack([...s.lessons, ...s.cases].map((i) => i.text));
  const header = {
    format: s.format,
    incarnation: s.incarnation,
    contentVersion: s.contentVersion,
    learnSeq: s.learnSeq,
    libraryVersion: s.libraryVersion,
    builtAt: s.builtAt,
    model: s.model,
    dims: s.dims,
    config: s.config,
    lessons: s.lessons.map(
      (l): LessonRow => [
        l.id,
        l.seq,
        l.label,
        l.q,
        l.tags,
        l.metadata,
        l.domain,
        l.createdAt,
        l.lastUsedAt,
        l.explore ? 1 : l.probation ? 2 : 0,
        l.uses,
      ],
    ),
    cases: s.cases.map((c): CaseRow => [c.id, c.seq, c.q, c.tags, c.metadata, c.createdAt, c.lastUsedAt, c.uses, c.informative ? 1 : 0]),
    texts: { bytes: blob(texts.bytes), ends: blob(texts.ends) },
    vectors: {
      experience: { ids: s.vectors.experience.ids, codes: blob(s.vectors.experience.codes) },
      case: { ids: s.vectors.case.ids, codes: blob(s.vectors.case.codes) },
    },
    unembedded: s.unembedded,
    centroids: { experience: entries(s.centroids.experience), case: entries(s.centroids.case) },
    whens: entries(s.whens),
    anyWhen: s.anyWhen,
    usageLearned: s.usageLearned,
    phrases: s.phrases,
    lexical: {
      experience: { ...table(s.lexical.experience), contentRows: s.lexical.experience.contentRows },
      case: { ...table(s.lexical.case), contentRows: s.lexical.case.contentRows },
      when: table(s.lexical.when),
    },
    reranker: s.reranker,
    signing: { id: s.signing.id, key: blob(s.signing.key) },
    subscriptions: s.subscriptions,
    shared: s.shared,
  };
  const json = new TextEncoder().encode(JSON.stringify(header));
  const head = new Uint8Array(4);
  new DataView(head.buffer).setUint32(0, json.length, true);
  return concat([head, json, ...blobs]);
}

/**
 * Reads what encodeSnapshot wrote; throws on a snapshot of another format. Texts stay UTF-8 until
 * read (snapshot-items.ts), copied out of `bytes` so the published buffer is not kept. Equal tag lists and
 * metadata are one object (never changed in place: a delta replaces an item whole), so a library
 * whose items share a few of them holds each once.
 */
export function decodeSnapshot(bytes: Uint8Array): ReadModelSnapshot {
  const seen = new Map<string, unknown>();
  const shared = <T>(value: T): T => {
    const key = JSON.stringify(value);
    const known = seen.get(key) as T | undefined;
    if (known !== undefined) return known;
    seen.set(key, value);
    return value;
  };
  const jsonLength = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
  const h = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + jsonLength)));
  if (h.format !== SNAPSHOT_FORMAT) throw new Error(`snapshot format ${String(h.format)} is not ${SNAPSHOT_FORMAT}`);
  const base = 4 + jsonLength;
  const blob = ([at, n]: [number, number]) => bytes.slice(base + at, base + at + n);
  const entries = (e: { ids: string[]; factors: number[]; codes: [number, number]; widths: number[] }): CodeEntry[] => {
    const all = blob(e.codes);
    let at = 0;
    return e.ids.map((id, i) => {
      const code = all.subarray(at, at + e.widths[i]!);
      at += e.widths[i]!;
      return { id, code, factor: e.factors[i]! };
    });
  };
  const table = (t: { terms: string[]; rows: number; tokens: number; blob: [number, number] }) => decodeTable(t, blob(t.blob));
  const texts = new PackedTexts(blob(h.texts.bytes), new Uint32Array(blob(h.texts.ends).buffer));
  return {
    format: h.format,
    incarnation: h.incarnation,
    contentVersion: h.contentVersion,
    learnSeq: h.learnSeq,
    libraryVersion: h.libraryVersion,
    builtAt: h.builtAt,
    model: h.model,
    dims: h.dims,
    config: h.config,
    lessons: (h.lessons as LessonRow[]).map(
      ([id, seq, label, q, tags, metadata, domain, createdAt, lastUsedAt, probation, uses], i) =>
        new PackedLesson(
          texts,
          i,
          id,
          seq,
          label,
          q,
          shared(tags),
          shared(metadata),
          domain,
          createdAt,
          lastUsedAt,
          probation !== 0,
          probation === 1,
          uses,
        ),
    ),
    cases: (h.cases as CaseRow[]).map(
      ([id, seq, q, tags, metadata, createdAt, lastUsedAt, uses, informative], i) =>
        new PackedCase(
          texts,
          h.lessons.length + i,
          id,
          seq,
          q,
          shared(tags),
          shared(metadata),
          createdAt,
          lastUsedAt,
          uses,
          informative === 1,
        ),
    ),
    vectors: {
      experience: { ids: h.vectors.experience.ids, codes: blob(h.vectors.experience.codes) },
      case: { ids: h.vectors.case.ids, codes: blob(h.vectors.case.codes) },
    },
    unembedded: h.unembedded,
    centroids: { experience: entries(h.centroids.experience), case: entries(h.centroids.case) },
    whens: entries(h.whens),
    anyWhen: h.anyWhen,
    usageLearned: h.usageLearned,
    phrases: h.phrases,
    lexical: {
      experience: { ...table(h.lexical.experience), contentRows: h.lexical.experience.contentRows },
      case: { ...table(h.lexical.case), contentRows: h.lexical.case.contentRows },
      when: table(h.lexical.when),
    },
    reranker: h.reranker,
    signing: { id: h.signing.id, key: blob(h.signing.key) },
    subscriptions: h.subscriptions,
    shared: h.shared,
  };
}
