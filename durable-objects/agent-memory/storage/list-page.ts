import type { ListFilter } from "../../../src/core/memory-types";
import { decodeCursor, pageOf } from "../../../src/core/cursor";
import { DomainError } from "../../../src/core/errors";

/**
 * One filtered page of experiences or cases in creation order, with an opaque cursor on `seq`.
 * `textColumn` is what `contains` searches; `source` applies only to tables that have one.
 */
export function listPage<Row extends Record<string, SqlStorageValue> & { seq: number }, Out>(
  sql: SqlStorage,
  table: "experiences" | "cases",
  textColumn: "text" | "task",
  filter: ListFilter,
  present: (row: Row) => Out,
): { items: Out[]; nextCursor: string | null } {
  const where: string[] = [];
  const args: SqlStorageValue[] = [];
  const add = (clause: string, value: SqlStorageValue) => {
    where.push(clause);
    args.push(value);
  };
  if (filter.status !== "all") add("status = ?", filter.status);
  if (filter.source && table === "experiences") add("source = ?", filter.source);
  if (filter.minQ !== undefined) add("q >= ?", filter.minQ);
  if (filter.tag) add(`EXISTS (SELECT 1 FROM json_each(${table}.tags) WHERE value = ?)`, filter.tag);
  if (filter.contains) add(`instr(lower(${textColumn}), lower(?)) > 0`, filter.contains);
  if (filter.cursor) {
    const c = decodeCursor(filter.cursor);
    if (!c || typeof c.s !== "number") {
      throw DomainError.unprocessable("The cursor is not valid.", [{ path: ["cursor"], message: "Not a cursor from this API" }]);
    }
    add("seq > ?", c.s);
  }
  const rows = sql
    .exec<Row>(
      `SELECT * FROM ${table} ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY seq LIMIT ?`,
      ...args,
      filter.limit + 1,
    )
    .toArray();
  const page = pageOf(rows, filter.limit, (last) => ({ s: last.seq }));
  return { items: page.items.map(present), nextCursor: page.nextCursor };
}
