type Attr = string | number | boolean | null | undefined | ((ev: Event) => void);
export type Child = Node | string | number | null | undefined | false | Child[];

export const $ = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const el = document.getElementById(id);
  if (!el) throw new Error(`The page has no #${id}`);
  return el as T;
};

/** An element: `on…` attributes become listeners, `text` the text, `class` the class name. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Record<string, Attr> | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "text") el.textContent = String(v);
    else if (k === "class") el.className = String(v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  el.append(...nodes(children));
  return el;
}

function nodes(children: Child[]): (Node | string)[] {
  return children
    .flat(Infinity as 1)
    .flatMap((c): (Node | string)[] => (c === null || c === undefined || c === false ? [] : [c instanceof Node ? c : String(c)])) as (
    | Node
    | string
  )[];
}

export const fill = (id: string, ...children: Child[]): void => $(id).replaceChildren(...nodes(children));
export const setStatus = (text: string): void => void ($("status").textContent = text);
export const empty = (text: string) => h("p", { class: "empty", text });
export const stat = (term: string, value: Child) => h("div", {}, h("dt", { text: term }), h("dd", {}, value));

export const fmtQ = (q: number | null | undefined) => (typeof q === "number" ? q.toFixed(3) : "—");
export const fmtInt = (n: number | null | undefined) => (typeof n === "number" ? n.toLocaleString("en-US") : "—");
export const fmtPct = (x: number | null | undefined) => (typeof x === "number" ? `${(x * 100).toFixed(1)}%` : "—");
export const fmtUsd = (x: number | null | undefined) => (typeof x === "number" ? `$${x.toFixed(4)}` : "—");
export const fmtTime = (ms: number | null | undefined) =>
  typeof ms === "number" ? `${new Date(ms).toISOString().replace("T", " ").slice(0, 19)} UTC` : "—";
/** `1 lesson`, `2 lessons`; a word whose plural is not `-s` gives it (`credited memory`, `credited memories`). */
export const plural = (n: number, word: string, many = `${word}s`) => `${n} ${n === 1 ? word : many}`;
