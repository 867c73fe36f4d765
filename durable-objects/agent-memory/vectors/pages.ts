import { encodeCode } from "../../../src/core/int8-matrix";
import type { LocalVectorIndex } from "../../../src/adapters/vector-indexes/local";
import type { VectorItems } from "./types";

/** Where the size of a model's stored vectors is remembered (meta table). */
export const dimsKey = (model: string) => `vector_dims:${model}`;

/** Bytes of codes per page row, about: small enough to rewrite on every write, large enough that a cold start reads a few hundred rows. */
const PAGE_BYTES = 16 * 1024;

interface SlotRow extends Record<string, SqlStorageValue> {
  model: string;
  kind: string;
  page: number;
  slot: number;
}

interface PageRow extends Record<string, SqlStorageValue> {
  kind: string;
  ids: string;
  codes: ArrayBuffer;
}

/** One page as stored: `codes` holds `ids.length` codes of one width back to back. */
export interface CodePage {
  kind: string;
  ids: string[];
  codes: Uint8Array;
}

/** An item's code in its stored form (see encodeCode). */
export interface PagedCode {
  id: string;
  code: Uint8Array;
}

/** Set by the schema step that moved codes into pages, until the stored vectors are paged. */
const PACK_PENDING_KEY = "vector_pages_pending";
/** Stored vectors read per statement while they are paged for the first time. */
const PACK_BATCH = 500;

const slotsPerPage = (width: number) => Math.max(1, Math.floor(PAGE_BYTES / width));

/**
 * The int8 codes of the agent's vectors (see encodeCode), packed many to a row per model and kind
 * with the ids they belong to, so a cold start reads a few hundred rows instead of one per memory
 * and hands each page to the index whole. The pages of a model and kind stay dense: all are full
 * but the last, a new code goes at the end of the last, and a removed code's slot takes the last
 * code of the last page. `vector_slots` says where each item's code is. Every change is made inside
 * the caller's transaction, with the change to the item it belongs to.
 */
export class VectorPages {
  constructor(private readonly sql: SqlStorage) {}

  /** Stores `code` as the item's code of `model`: over its old one, or at the end of the kind's pages. */
  put(itemId: string, model: string, kind: string, code: Uint8Array): void {
    const at = this.slotOf(itemId, model);
    if (at?.kind === kind) {
      const page = this.page(model, kind, at.page);
      page.codes.set(code, at.slot * widthOf(page, code.length));
      this.write(model, at.page, page);
      return;
    }
    if (at) this.vacate(itemId, at);
    this.append(model, kind, [{ id: itemId, code }]);
  }

  /** Removes the item's codes of every model but `keep` (with no `keep`, of every model). */
  remove(itemId: string, keep?: string): void {
    const slots = this.sql.exec<SlotRow>("SELECT model, kind, page, slot FROM vector_slots WHERE item_id = ?", itemId).toArray();
    for (const at of slots) if (at.model !== keep) this.vacate(itemId, at);
  }

  /** Adds codes of items that have none of `model` yet, filling the last page and then whole new ones. */
  append(model: string, kind: string, items: readonly PagedCode[]): void {
    if (!items.length) return;
    const width = items[0]!.code.length;
    const perPage = slotsPerPage(width);
    const last = this.sql
      .exec<{ page: number }>("SELECT page FROM vector_pages WHERE model = ? AND kind = ? ORDER BY page DESC LIMIT 1", model, kind)
      .toArray()[0]?.page;
    let pageNo = last ?? 0;
    let page: CodePage = last === undefined ? { kind, ids: [], codes: new Uint8Array(0) } : this.page(model, kind, last);
    if (page.ids.length) widthOf(page, width);
    let parts = [page.codes];
    let changed = false;
    const flush = () => this.write(model, pageNo, { kind, ids: page.ids, codes: concat(parts, page.ids.length * width) });
    for (const it of items) {
      if (it.code.length !== width) throw new Error(`codes of ${model} are ${width} bytes wide, not ${it.code.length}`);
      if (page.ids.length === perPage) {
        if (changed) flush();
        pageNo++;
        page = { kind, ids: [], codes: new Uint8Array(0) };
        parts = [];
      }
      this.sql.exec(
        "INSERT INTO vector_slots (item_id, model, kind, page, slot) VALUES (?, ?, ?, ?, ?)",
        it.id,
        model,
        kind,
        pageNo,
        page.ids.length,
      );
      page.ids.push(it.id);
      parts.push(it.code);
      changed = true;
    }
    flush();
  }

  /** How many codes of `model` there are: a sum over the pages, a few hundred rows at 50k memories. */
  count(model: string): number {
    return this.sql.exec<{ n: number }>("SELECT coalesce(sum(n), 0) AS n FROM vector_pages WHERE model = ?", model).one().n;
  }

  /** How many codes of `model` each kind has (the local index sizes its matrices once from this). */
  countsByKind(model: string): Map<string, number> {
    return new Map(
      this.sql
        .exec<{ kind: string; n: number }>("SELECT kind, sum(n) AS n FROM vector_pages WHERE model = ? GROUP BY kind", model)
        .toArray()
        .map((r) => [r.kind, r.n]),
    );
  }

  /** The pages of `model`, one row at a time. */
  *read(model: string): Generator<CodePage> {
    for (const r of this.sql.exec<PageRow>("SELECT kind, ids, codes FROM vector_pages WHERE model = ?", model)) {
      yield { kind: r.kind, ids: JSON.parse(r.ids) as string[], codes: new Uint8Array(r.codes) };
    }
  }

  private slotOf(itemId: string, model: string): SlotRow | undefined {
    return this.sql
      .exec<SlotRow>("SELECT model, kind, page, slot FROM vector_slots WHERE item_id = ? AND model = ?", itemId, model)
      .toArray()[0];
  }

  private page(model: string, kind: string, page: number): CodePage {
    const r = this.sql
      .exec<PageRow>("SELECT kind, ids, codes FROM vector_pages WHERE model = ? AND kind = ? AND page = ?", model, kind, page)
      .one();
    return { kind: r.kind, ids: JSON.parse(r.ids) as string[], codes: new Uint8Array(r.codes) };
  }

  private write(model: string, pageNo: number, page: CodePage): void {
    this.sql.exec(
      `INSERT INTO vector_pages (model, kind, page, n, ids, codes) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(model, kind, page) DO UPDATE SET n = excluded.n, ids = excluded.ids, codes = excluded.codes`,
      model,
      page.kind,
      pageNo,
      page.ids.length,
      JSON.stringify(page.ids),
      page.codes,
    );
  }

  /** Frees the item's slot: the last code of the kind's last page moves into it, and that page shrinks by one. */
  private vacate(itemId: string, at: SlotRow): void {
    const { model, kind } = at;
    const lastNo = this.sql
      .exec<{ page: number }>("SELECT page FROM vector_pages WHERE model = ? AND kind = ? ORDER BY page DESC LIMIT 1", model, kind)
      .one().page;
    const last = this.page(model, kind, lastNo);
    const width = widthOf(last);
    const end = last.ids.length - 1;
    if (at.page !== lastNo || at.slot !== end) {
      const target = at.page === lastNo ? last : this.page(model, kind, at.page);
      const movedId = last.ids[end]!;
      target.codes.set(last.codes.subarray(end * width, (end + 1) * width), at.slot * widthOf(target, width));
      target.ids[at.slot] = movedId;
      if (target !== last) this.write(model, at.page, target);
      this.sql.exec("UPDATE vector_slots SET page = ?, slot = ? WHERE item_id = ? AND model = ?", at.page, at.slot, movedId, model);
    }
    last.ids.pop();
    if (last.ids.length) this.write(model, lastNo, { kind, ids: last.ids, codes: last.codes.slice(0, end * width) });
    else this.sql.exec("DELETE FROM vector_pages WHERE model = ? AND kind = ? AND page = ?", model, kind, lastNo);
    this.sql.exec("DELETE FROM vector_slots WHERE item_id = ? AND model = ?", itemId, model);
  }
}

/**
 * Gives every stored vector its code, once, after the schema step that moved codes into pages;
 * codes are quantised from the float vectors, as every write quantises them. A model's codes all
 * have one width: vectors of another size than the model's remembered one (or, with none, its first
 * vector's) get none, and their items are re-embedded. One transaction, so a crash leaves the flag
 * and the next start begins again.
 */
export function packPendingCodes(storage: DurableObjectStorage): void {
  const sql = storage.sql;
  if (!sql.exec("SELECT 1 FROM meta WHERE key = ?", PACK_PENDING_KEY).toArray().length) return;
  const pages = new VectorPages(sql);
  const bytesOf = new Map<string, number>();
  const expectedBytes = (model: string, first: number) => {
    let bytes = bytesOf.get(model);
    if (bytes === undefined) {
      const dims = Number(sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", dimsKey(model)).toArray()[0]?.value ?? 0);
      bytesOf.set(model, (bytes = dims > 0 ? dims * Float32Array.BYTES_PER_ELEMENT : first));
    }
    return bytes;
  };
  storage.transactionSync(() => {
    for (let after = 0; ; ) {
      const rows = sql
        .exec<{ rowid: number; item_id: string; kind: string; model: string; vec: ArrayBuffer }>(
          `SELECT rowid, item_id, kind, model, vec FROM vectors v WHERE rowid > ?
           AND NOT EXISTS (SELECT 1 FROM vector_slots s WHERE s.item_id = v.item_id AND s.model = v.model) ORDER BY rowid LIMIT ?`,
          after,
          PACK_BATCH,
        )
        .toArray();
      if (!rows.length) break;
      const groups = new Map<string, { model: string; kind: string; items: PagedCode[] }>();
      for (const r of rows) {
        if (r.vec.byteLength !== expectedBytes(r.model, r.vec.byteLength)) continue;
        const key = JSON.stringify([r.model, r.kind]);
        let g = groups.get(key);
        if (!g) groups.set(key, (g = { model: r.model, kind: r.kind, items: [] }));
        g.items.push({ id: r.item_id, code: encodeCode(new Float32Array(r.vec)) });
      }
      for (const g of groups.values()) pages.append(g.model, g.kind, g.items);
      after = rows.at(-1)!.rowid;
    }
    sql.exec("DELETE FROM meta WHERE key = ?", PACK_PENDING_KEY);
  });
}

/**
 * Fills a fresh local index from the code pages of `model` (a few hundred rows at 50k memories)
 * and the ids of the items that are not active, never every item. True when every active item got
 * its code: the index then holds as many codes as there are active items, since a code is deleted
 * with its item.
 */
export function loadCodePages(pages: VectorPages, index: LocalVectorIndex, model: string, dims: number, items: VectorItems): boolean {
  for (const [kind, n] of pages.countsByKind(model)) index.reserve(kind, n);
  const width = dims + 4;
  const inactive = new Set(items.inactive());
  for (const page of pages.read(model)) {
    // Pages of another width hold codes of another vector size: their items are re-embedded.
    if (page.codes.length !== page.ids.length * width) continue;
    const searched = inactive.size ? pageWithout(page, inactive) : page;
    index.appendCodes(page.kind, searched.ids, searched.codes);
  }
  return index.size === items.activeCount();
}

/** The page without the codes of `ids` (the page itself when it holds none of them). */
export function pageWithout(page: CodePage, ids: ReadonlySet<string>): CodePage {
  if (!page.ids.some((id) => ids.has(id))) return page;
  const width = widthOf(page);
  const kept: number[] = [];
  page.ids.forEach((id, slot) => {
    if (!ids.has(id)) kept.push(slot);
  });
  const codes = new Uint8Array(kept.length * width);
  kept.forEach((slot, i) => codes.set(page.codes.subarray(slot * width, (slot + 1) * width), i * width));
  return { kind: page.kind, ids: kept.map((slot) => page.ids[slot]!), codes };
}

/** The width of the page's codes, checked against `expected` when given: a model's codes all have one width. */
function widthOf(page: CodePage, expected?: number): number {
  const width = page.codes.length / page.ids.length;
  if (!Number.isInteger(width) || (expected !== undefined && width !== expected)) {
    throw new Error(
      `a page of ${page.ids.length} codes holds ${page.codes.length} bytes, not ${expected ?? "a whole number of"} bytes each`,
    );
  }
  return width;
}

function concat(parts: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
