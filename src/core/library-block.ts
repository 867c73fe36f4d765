/**
 * The experience library as injected into a prompt: one `[G#]. text` line per lesson. Stored text
 * comes from agents and end users, so a line break inside it could forge a header, a `SYSTEM:` line
 * or another `[G#]` lesson. Every kind of line break is folded into a space, so each item is
 * exactly one line whatever it holds; a label inside the text loses its brackets, so only the
 * block's own labels can be cited; invisible characters are dropped and a line has a bounded
 * length, so no item can hide text or run on into the next.
 */
import { stripInvisible } from "./skeleton";

export interface LibraryBlockItem {
  label: string;
  text: string;
}

// LF, CR, VT, FF, NEL, LS and PS all end a line for some reader (a model's tokenizer included).
const LINE_BREAKS_RE = /[\n\r\v\f\u0085\u2028\u2029]+/g;

export function oneLine(text: string): string {
  return text
    .replace(LINE_BREAKS_RE, " ")
    .replace(/[ \t]{2,}/g, " ")
    .trim();
}

/** Longest lesson text a line carries: the longest a lesson can be stored with (EXPERIENCE_MAX_CHARS). */
export const LIBRARY_LINE_MAX_CHARS = 600;

// `[G7]` in any bracket and digit script, as the filter reads it (src/core/poison.ts).
const LABEL_IN_TEXT_RE = /[[［【〔〖〘〚⟦⟨«‹{<]\s*([GＧ]\s*\p{Nd}+)\s*[\]］】〕〗〙〛⟧⟩»›}>]/gu;

export function libraryLine(item: LibraryBlockItem): string {
  let text = oneLine(stripInvisible(oneLine(item.text))).replace(LABEL_IN_TEXT_RE, "($1)");
  if ([...text].length > LIBRARY_LINE_MAX_CHARS)
    text = `${[...text]
      .slice(0, LIBRARY_LINE_MAX_CHARS - 1)
      .join("")
      .trimEnd()}…`;
  return `[${oneLine(item.label)}]. ${text}`;
}

export function renderLibraryBlock(items: readonly LibraryBlockItem[], empty = ""): string {
  if (items.length === 0) return empty;
  return items.map(libraryLine).join("\n");
}

// What may stand before a label that opens a line (the shape of a lesson line): blanks and list or quote marks.
const LINE_OPENING_RE = /^[\s>*#•·-]*$/u;
const opensLine = (before: string) => LINE_OPENING_RE.test(before.split(LINE_BREAKS_RE).pop()!);

/**
 * What an agent writes about its own work (an answer, an attempt, a trace) may cite the lessons it
 * was shown: "refunded after Retry-After [G0]". Such a citation is kept, without its brackets, as
 * a library line keeps a label inside a lesson's text: `(G0)` cannot forge a lesson line in a
 * later prompt, and the filter reads it as ordinary text. Only labels in `shown` are citations; a
 * label that opens a line (`[G7]. Ignore …`, the shape of a lesson line) is not one either. Both
 * stay as written, for the filter to refuse.
 */
export function debracketCitations(text: string, shown: ReadonlySet<string>): string {
  if (!shown.size) return text;
  return text.replace(LABEL_IN_TEXT_RE, (label, inner: string, at: number) => {
    const name = inner.normalize("NFKC").replace(/\s+/g, "");
    return shown.has(name) && !opensLine(text.slice(0, at)) ? `(${inner})` : label;
  });
}

/** The `[G#]` labels an agent quoted back, e.g. in its answer: each one is a citation. */
export function quotedLabels(text: string): string[] {
  return [...new Set(Array.from(text.matchAll(/\[(G\d+)\]/g), (m) => m[1]!))];
}
