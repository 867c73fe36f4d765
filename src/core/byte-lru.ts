/**
 * A map bounded by the bytes its entries declare: adding one evicts the least recently used until
 * the total fits the budget again, and an entry larger than the whole budget is not kept. Map
 * iteration order is insertion order, so re-inserting on every hit keeps the oldest entry first.
 */
export class ByteLru<K, V> {
  private readonly entries = new Map<K, { value: V; bytes: number }>();
  private total = 0;

  constructor(readonly budget: number) {
    if (!(budget >= 0)) throw new RangeError(`budget must be a non-negative number of bytes, got ${budget}`);
  }

  get(key: K): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit.value;
  }

  /** Whether it was kept: false for an entry larger than the budget (an older entry of its key is dropped all the same). */
  set(key: K, value: V, bytes: number): boolean {
    if (!(bytes >= 0)) throw new RangeError(`bytes must be a non-negative number, got ${bytes}`);
    this.delete(key);
    if (bytes > this.budget) return false;
    while (this.total + bytes > this.budget) this.delete(this.entries.keys().next().value as K);
    this.entries.set(key, { value, bytes });
    this.total += bytes;
    return true;
  }

  /**
   * Evicts the least recently used, `spare` last of all, until `bytes` more would fit: room made
   * before a large value is built, not after. The value `spare` holds stays while it is replaced.
   */
  makeRoom(bytes: number, spare?: K): void {
    for (const key of [...this.entries.keys()]) {
      if (this.total + bytes <= this.budget) return;
      if (key !== spare) this.delete(key);
    }
  }

  delete(key: K): void {
    const hit = this.entries.get(key);
    if (!hit) return;
    this.entries.delete(key);
    this.total -= hit.bytes;
  }

  clear(): void {
    this.entries.clear();
    this.total = 0;
  }

  /** Bytes the entries declare, in all. */
  get bytes(): number {
    return this.total;
  }

  get size(): number {
    return this.entries.size;
  }
}
