import type { MemoryFilter, MemoryKind } from "../../../src/core/memory-types";
import { placeholders } from "../storage/context";

/** SQL conditions (each prefixed with AND, or none) and their parameters. */
export interface SqlFilter {
  sql: string;
  params: SqlStorageValue[];
}

export const NO_FILTER: SqlFilter = { sql: "", params: [] };

/**
 * A retrieval filter as conditions on the `alias` row of an experiences or cases table. Every
 * channel of phase A reads its candidates through these, so the top k are filled from matching
 * items however many better-ranked ones do not match. Metadata compares type and value (JSON's
 * true is not 1, 1 is not "1"); cases have no domain, so a domain filter matches none of them.
 */
export function filterSql(filter: MemoryFilter | undefined, kind: MemoryKind, alias = "t"): SqlFilter {
  if (!filter) return NO_FILTER;
  const parts: string[] = [];
  const params: SqlStorageValue[] = [];
  if (filter.tags?.length) {
    parts.push(`EXISTS (SELECT 1 FROM json_each(${alias}.tags) WHERE value IN (${placeholders(filter.tags.length)}))`);
    params.push(...filter.tags);
  }
  if (filter.domain !== undefined) {
    if (kind === "case") parts.push("0");
    else parts.push(`${alias}.domain = ?`), params.push(filter.domain);
  }
  if (filter.createdAfter !== undefined) parts.push(`${alias}.created_at > ?`), params.push(filter.createdAfter);
  if (filter.usedAfter !== undefined) parts.push(`${alias}.last_used_at > ?`), params.push(filter.usedAfter);
  for (const [key, value] of Object.entries(filter.metadata ?? {})) {
    const match =
      typeof value === "boolean"
        ? `type = '${value}'`
        : typeof value === "number"
          ? "type IN ('integer', 'real') AND value = ?"
          : "type = 'text' AND value = ?";
    parts.push(`EXISTS (SELECT 1 FROM json_each(${alias}.metadata) WHERE key = ? AND ${match})`);
    params.push(key, ...(typeof value === "boolean" ? [] : [value]));
  }
  return { sql: parts.map((p) => ` AND ${p}`).join(""), params };
}
