/**
 * A retrieval filter over items held in memory, with the semantics of the SQL conditions the
 * agent's object applies to its tables (durable-objects/agent-memory/memory-filter.ts): any of the
 * tags; the lesson's domain (a case has none, so a domain filter matches no case); created or last
 * used strictly after a time (never-used items do not match); each metadata key present with this
 * exact value of the same type (JSON's true is not 1, 1 is not "1").
 */
import type { MemoryFilter, MemoryKind } from "../memory-types";
import type { Metadata } from "../served-fields";

export interface FilterableItem {
  tags: readonly string[];
  domain: string | null;
  createdAt: number;
  lastUsedAt: number | null;
  metadata: Metadata;
}

/**
 * The filter a retrieval asks for: `filter`, or the older top-level `tags` (both at once are
 * refused by the schema). One without conditions (`{}`, `metadata: {}`) is none, so it keeps the
 * index's own scan.
 */
export function effectiveFilter(req: { filter?: MemoryFilter | undefined; tags?: string[] | undefined }): MemoryFilter | undefined {
  const filter = req.filter ?? (req.tags?.length ? { tags: req.tags } : undefined);
  if (!filter) return undefined;
  const any =
    Boolean(filter.tags?.length) ||
    filter.domain !== undefined ||
    filter.createdAfter !== undefined ||
    filter.usedAfter !== undefined ||
    Object.keys(filter.metadata ?? {}).length > 0;
  return any ? filter : undefined;
}

export function matchesFilter(item: FilterableItem, kind: MemoryKind, filter: MemoryFilter | undefined): boolean {
  if (!filter) return true;
  if (filter.tags?.length && !item.tags.some((t) => filter.tags!.includes(t))) return false;
  if (filter.domain !== undefined && (kind === "case" || item.domain !== filter.domain)) return false;
  if (filter.createdAfter !== undefined && !(item.createdAt > filter.createdAfter)) return false;
  if (filter.usedAfter !== undefined && !(item.lastUsedAt !== null && item.lastUsedAt > filter.usedAfter)) return false;
  for (const [key, value] of Object.entries(filter.metadata ?? {})) {
    if (!Object.hasOwn(item.metadata, key)) return false;
    const held = item.metadata[key];
    if (typeof held !== typeof value || held !== value) return false;
  }
  return true;
}
