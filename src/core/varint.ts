/**
 * Unsigned integers as varints (seven bits a byte, low first, the high bit set on all but the
 * last): how a snapshot's binary sections and a Worker's posting lists hold row numbers and counts.
 */
export class VarintWriter {
  private chunks: Uint8Array[] = [];
  private buf: Uint8Array;
  private at = 0;

  /** `initial`: bytes of the first buffer; a small list asks for little. */
  constructor(initial = 1 << 16) {
    this.buf = new Uint8Array(Math.max(16, initial));
  }

  private room(n: number) {
    if (this.at + n <= this.buf.length) return;
    this.chunks.push(this.buf.subarray(0, this.at));
    this.buf = new Uint8Array(Math.max(this.buf.length, n));
    this.at = 0;
  }

  varint(v: number) {
    this.room(10);
    let x = v;
    while (x >= 0x80) {
      this.buf[this.at++] = (x % 0x80) | 0x80;
      x = Math.floor(x / 0x80);
    }
    this.buf[this.at++] = x;
  }

  /** Bytes already encoded, as they are. */
  bytes(b: Uint8Array) {
    this.room(b.length);
    this.buf.set(b, this.at);
    this.at += b.length;
  }

  /** The bytes written, in an array of their own length. */
  done(): Uint8Array {
    return concat([...this.chunks, this.buf.subarray(0, this.at)]);
  }
}

export class VarintReader {
  at = 0;
  constructor(private readonly buf: Uint8Array) {}

  get more(): boolean {
    return this.at < this.buf.length;
  }

  /** A view of the bytes from `from` to `to`, sharing the buffer. */
  bytes(from: number, to: number): Uint8Array {
    return this.buf.subarray(from, to);
  }

  varint(): number {
    let v = 0;
    let mul = 1;
    for (;;) {
      const b = this.buf[this.at++]!;
      v += (b & 0x7f) * mul;
      if (b < 0x80) return v;
      mul *= 0x80;
    }
  }
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
