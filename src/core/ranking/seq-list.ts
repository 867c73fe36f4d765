/**
 * A snapshot's lessons and cases are kept in a list by seq (labels are positions in it): a delta
 * takes out the items it changed and puts them back as they are now.
 */

/** Below this many changes a list is edited in place (a splice each), above it built again in one pass. */
const SPLICE_MAX = 32;

/**
 * Takes the items at `dropped` seqs out of a list kept by seq and puts `added` in, in work
 * proportional to the change for the common few; returns the first position that moved (labels
 * before it stay as they are).
 */
export function replaceBySeq<T extends { seq: number }>(list: T[], dropped: readonly number[], added: readonly T[]): number {
  const at = (seq: number) => {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (list[mid]!.seq < seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  if (dropped.length + added.length > SPLICE_MAX) {
    const gone = new Set(dropped);
    const first = Math.min(...dropped.map(at), ...added.map((i) => at(i.seq)));
    const rebuilt = [...list.filter((i) => !gone.has(i.seq)), ...added].sort((a, b) => a.seq - b.seq);
    rebuilt.forEach((item, i) => (list[i] = item));
    list.length = rebuilt.length;
    return first;
  }
  let first = list.length;
  for (const seq of dropped) {
    const i = at(seq);
    if (list[i]?.seq !== seq) continue;
    list.splice(i, 1);
    first = Math.min(first, i);
  }
  for (const item of [...added].sort((a, b) => a.seq - b.seq)) {
    const i = at(item.seq);
    list.splice(i, 0, item);
    first = Math.min(first, i);
  }
  return first;
}
