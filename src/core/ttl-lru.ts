/**
 * A bounded map whose entries also expire: the least recently used entry goes first when full,
 * and an entry older than `ttlMs` is treated as absent. Map iteration order is insertion order,
 * so re-inserting on every hit keeps the oldest entry first.
 */
export class TtlLru<K, V> {
  private readonly entries = new Map<K, { value: V; at: number }>();

  constructor(
    private readonly max: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isInteger(max) || max <= 0) throw new RangeError(`max must be a positive integer, got ${max}`);
  }

  get(key: K): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    this.entries.delete(key);
    if (this.now() - hit.at >= this.ttlMs) return undefined;
    this.entries.set(key, hit);
    return hit.value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, at: this.now() });
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as K);
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
