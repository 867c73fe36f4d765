import type { MemoryKind } from "../../src/core/memory-types";

/** What the store needs to know about the items it holds vectors for; the owner answers from its own tables. */
export interface VectorItems {
  /** Active items of `kind`, oldest first; with `tags`, only those carrying at least one of them. */
  active(kind: MemoryKind, tags?: readonly string[]): string[];
  /** How many items are active, of both kinds. */
  activeCount(): number;
  /** The items of both kinds that exist but are not active. */
  inactive(): string[];
  /** The kind of each of `ids` that exists and is active. */
  activeKinds(ids: readonly string[]): Map<string, MemoryKind>;
}
