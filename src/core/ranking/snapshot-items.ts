/**
 * A decoded snapshot's items with their texts left as UTF-8: every text of a snapshot back to back
 * in one byte array, each decoded when a read serves it. A 100,000-memory snapshot then never
 * holds its texts as one JSON string while it decodes, nor a string per item after.
 */
import type { Metadata } from "../served-fields";

const utf8 = new TextDecoder();

/** Texts as published: UTF-8 back to back, `ends[i]` where text i ends. */
export class PackedTexts {
  constructor(
    readonly bytes: Uint8Array,
    readonly ends: Uint32Array,
  ) {}

  static pack(texts: readonly string[]): { bytes: Uint8Array; ends: Uint8Array } {
    const encoder = new TextEncoder();
    const parts = texts.map((t) => encoder.encode(t));
    const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    const ends = new Uint32Array(parts.length);
    let at = 0;
    parts.forEach((p, i) => {
      bytes.set(p, at);
      at += p.length;
      ends[i] = at;
    });
    return { bytes, ends: new Uint8Array(ends.buffer) };
  }

  text(i: number): string {
    return utf8.decode(this.bytes.subarray(i ? this.ends[i - 1]! : 0, this.ends[i]!));
  }
}

/** A lesson as a Worker holds it (a SnapshotLesson); `text` is read from the snapshot's packed texts (a private field: spreads and equality see the fields alone). */
export class PackedLesson {
  readonly #texts: PackedTexts;
  readonly #at: number;
  constructor(
    texts: PackedTexts,
    at: number,
    public id: string,
    public seq: number,
    public label: string,
    public q: number,
    public tags: string[],
    public metadata: Metadata,
    public domain: string | null,
    public createdAt: number,
    public lastUsedAt: number | null,
    public probation: boolean,
    public explore: boolean,
    public uses: number,
  ) {
    this.#texts = texts;
    this.#at = at;
  }

  get text(): string {
    return this.#texts.text(this.#at);
  }
}

/** A case as a Worker holds it, its text read as a PackedLesson's is. */
export class PackedCase {
  readonly #texts: PackedTexts;
  readonly #at: number;
  constructor(
    texts: PackedTexts,
    at: number,
    public id: string,
    public seq: number,
    public q: number,
    public tags: string[],
    public metadata: Metadata,
    public createdAt: number,
    public lastUsedAt: number | null,
    public uses: number,
    public informative: boolean,
  ) {
    this.#texts = texts;
    this.#at = at;
  }

  get text(): string {
    return this.#texts.text(this.#at);
  }
}
