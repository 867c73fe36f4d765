import { and, eq, lt, or, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";

/**
 * The keyset condition of a newest-first page (ordered by created-at, then id, both descending):
 * the rows after the last one of the previous page. Undefined for the first page.
 */
export function olderThan(createdAt: SQLiteColumn, id: SQLiteColumn, after?: { createdAt: number; id: string }): SQL | undefined {
  return after ? or(lt(createdAt, after.createdAt), and(eq(createdAt, after.createdAt), lt(id, after.id))) : undefined;
}
