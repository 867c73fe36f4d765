/**
 * The experience library as injected into a prompt: one `[G#]. text` line per lesson. Stored text
 * comes from agents and end users, so a line break inside it could forge a header, a `SYSTEM:` line
 * or another `[G#]` lesson. Every kind of line break is folded into a space, so each item is
 * exactly one line whatever it holds.
 */

export interface LibraryBlockItem {
  label: string;
  text: string;
}

// LF, CR, VT, FF, NEL, LS and PS all end a line for some reader (a model's tokenizer included).
const LINE_BREAKS_RE = /[\n\r\v\f\u0085\u2028\u2029]+/g;

export function oneLine(text: string): string {
  return text.replace(LINE_BREAKS_RE, " ").replace(/[ \t]{2,}/g, " ").trim();
}

export function libraryLine(item: LibraryBlockItem): string {
  return `[${oneLine(item.label)}]. ${oneLine(item.text)}`;
}

export function renderLibraryBlock(items: readonly LibraryBlockItem[], empty = ""): string {
  if (items.length === 0) return empty;
  return items.map(libraryLine).join("\n");
}

/** The `[G#]` labels an agent quoted back, e.g. in its answer: each one is a citation. */
export function quotedLabels(text: string): string[] {
  return [...new Set(Array.from(text.matchAll(/\[(G\d+)\]/g), (m) => m[1]!))];
}
