/**
 * The library as it is injected into prompts: one line per experience, `[G3]. <text>`. Every
 * experience renders as exactly one line whatever it holds, so stored text cannot forge a header,
 * a role line or another lesson.
 */
/** Collapses all whitespace, newlines included, so a text always stays on its line. */
export const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

export function renderLibraryBlock(items: readonly { label: string; text: string }[], empty = "(no lessons yet)"): string {
  if (items.length === 0) return empty;
  return items.map((e) => `[${e.label}]. ${oneLine(e.text)}`).join("\n");
}
