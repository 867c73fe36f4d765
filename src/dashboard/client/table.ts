import { empty, h, type Child } from "./dom.js";

export interface Column<R> {
  label: string;
  cell: (row: R) => Child;
  sort?: (row: R) => number | string;
  num?: boolean;
  /** An identifier: wraps anywhere, so long generated ids never widen the table past the screen. */
  id?: boolean;
}

export type DataTable = HTMLDivElement & { refresh(): void };

/** A table whose headers sort it (buttons, with aria-sort) and that can be filtered. */
export function dataTable<R>(
  caption: string,
  cols: Column<R>[],
  rows: R[],
  options: { filter?: (row: R) => boolean; id?: string; rowId?: (row: R) => string } = {},
): DataTable {
  let sortCol = -1;
  let dir = 1;
  const tbody = h("tbody");
  const heads = cols.map((c, i) => {
    const th = h("th", { scope: "col", class: c.num ? "num" : null });
    if (c.sort) {
      th.setAttribute("aria-sort", "none");
      th.append(h("button", { type: "button", class: "sort", onclick: () => sortBy(i) }, c.label));
    } else th.textContent = c.label;
    return th;
  });
  function render() {
    const shown = options.filter ? rows.filter(options.filter) : rows.slice();
    const key = cols[sortCol]?.sort;
    if (key) {
      shown.sort((a, b) => {
        const x = key(a);
        const y = key(b);
        return (x < y ? -1 : x > y ? 1 : 0) * dir;
      });
    }
    tbody.replaceChildren(
      ...(shown.length
        ? shown.map((r) =>
            h(
              "tr",
              { id: options.rowId?.(r) ?? null },
              cols.map((c) => h("td", { class: c.num ? "num" : c.id ? "id" : null }, c.cell(r))),
            ),
          )
        : [h("tr", {}, h("td", { colspan: cols.length, class: "empty", text: "Nothing to show." }))]),
    );
  }
  function sortBy(i: number) {
    dir = sortCol === i ? -dir : 1;
    sortCol = i;
    heads.forEach((th, j) => cols[j]?.sort && th.setAttribute("aria-sort", j === i ? (dir > 0 ? "ascending" : "descending") : "none"));
    render();
  }
  render();
  const table = h("table", { id: options.id }, h("caption", { text: caption }), h("thead", {}, h("tr", {}, heads)), tbody);
  return Object.assign(h("div", { class: "table-wrap" }, table), { refresh: render });
}

/** A value of unknown shape: arrays of records as a table, anything else as JSON. */
export function anyValue(v: unknown): Node {
  if (Array.isArray(v) && v.length && v.every((x) => x && typeof x === "object" && !Array.isArray(x))) {
    const records = v as Record<string, unknown>[];
    const keys = [...new Set(records.flatMap((x) => Object.keys(x)))];
    const cell = (x: unknown) => (x === null || x === undefined ? "—" : typeof x === "object" ? JSON.stringify(x) : String(x));
    return dataTable(
      `${records.length} item${records.length === 1 ? "" : "s"}`,
      keys.map((k) => ({ label: k, cell: (r: Record<string, unknown>) => cell(r[k]) })),
      records,
    );
  }
  if (Array.isArray(v) && v.length === 0) return empty("None.");
  return h("pre", {}, typeof v === "string" ? v : JSON.stringify(v, null, 2));
}
