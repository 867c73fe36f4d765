/**
 * The memory a Worker holds for a snapshot once decoded, estimated from what the object knows
 * before it sends one: its published bytes and how many of them are vector codes. Measured with
 * bench/snapshot-heap.ts, decoded in Node (whose 64-bit pointers make objects larger than
 * workerd's compressed ones): at 100,000 memories the decoded reader holds 1.48 bytes per
 * published byte besides the codes (items, their packed texts, posting lists, maps), and the
 * scans hold the codes with up to a fifth more (a page-rounded WebAssembly memory, a score per
 * row); the estimate is within a tenth of the measured at 10,000 and 100,000 memories.
 * READ_SNAPSHOT_MAX_BYTES and READ_CACHE_BYTES bound this, not the bytes sent.
 */
const HELD_PER_BYTE = 1.5;
const HELD_PER_CODE_BYTE = 1.2;

export function decodedBytes(published: number, codeBytes: number): number {
  return Math.ceil(HELD_PER_BYTE * Math.max(0, published - codeBytes) + HELD_PER_CODE_BYTE * codeBytes);
}
