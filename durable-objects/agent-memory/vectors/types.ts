import type { MemoryFilter, MemoryKind } from "../../../src/core/memory-types";

/** What the store needs to know about the items it holds vectors for; the owner answers from its own tables. */
export interface VectorItems {
  /** Active items of `kind`, oldest first; with a filter, only those it matches. */
  active(kind: MemoryKind, filter?: MemoryFilter): string[];
  /** How many items are active, of both kinds. */
  activeCount(): number;
  /** The items of both kinds that exist but are not active. */
  inactive(): string[];
  /** The kind of each of `ids` that exists and is active. */
  activeKinds(ids: readonly string[]): Map<string, MemoryKind>;
}
