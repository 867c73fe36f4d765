import type { MemoryFilter, MemoryKind } from "../../../src/core/memory-types";
import { chunks, placeholders } from "../storage/context";
import { filterSql } from "../retrieval/memory-filter";
import type { VectorItems } from "./types";

const TABLE: Record<MemoryKind, string> = { experience: "experiences", case: "cases" };

/** The vector store's view of the experience and case tables. */
export class SqlVectorItems implements VectorItems {
  constructor(private readonly sql: SqlStorage) {}

  active(kind: MemoryKind, filter?: MemoryFilter): string[] {
    const table = TABLE[kind];
    const where = filterSql(filter, kind);
    const rows = where.sql
      ? this.sql.exec<{ id: string }>(`SELECT id FROM ${table} t WHERE t.status = 'active'${where.sql} ORDER BY t.seq`, ...where.params)
      : this.sql.exec<{ id: string }>(`SELECT id FROM ${table} WHERE status = 'active' ORDER BY seq`);
    return rows.toArray().map((r) => r.id);
  }

  activeCount(): number {
    // Each count reads only its table's (status, seq) index.
    return (["experience", "case"] as const).reduce(
      (n, kind) => n + this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${TABLE[kind]} WHERE status = 'active'`).one().n,
      0,
    );
  }

  inactive(): string[] {
    // Written as the partial indexes of inactive items say (schema.ts), so each is read alone, ids and all.
    return (["experience", "case"] as const).flatMap((kind) =>
      this.sql
        .exec<{ id: string }>(`SELECT id FROM ${TABLE[kind]} WHERE status <> 'active'`)
        .toArray()
        .map((r) => r.id),
    );
  }

  activeKinds(ids: readonly string[]): Map<string, MemoryKind> {
    const out = new Map<string, MemoryKind>();
    for (const kind of ["experience", "case"] as const) {
      for (const chunk of chunks(ids)) {
        for (const r of this.sql.exec<{ id: string }>(
          `SELECT id FROM ${TABLE[kind]} WHERE id IN (${placeholders(chunk.length)}) AND status = 'active'`,
          ...chunk,
        )) {
          out.set(r.id, kind);
        }
      }
    }
    return out;
  }
}
