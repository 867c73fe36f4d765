/** Pulling the final answer out of a policy's free-text reply. */

/**
 * The content of the last `\boxed{…}` (or `\fbox{…}`), with nested braces balanced; `\boxed 5`
 * without braces takes the next token. Null when there is none or its braces never close.
 */
export function lastBoxed(text: string): string | null {
  const re = /\\(?:boxed|fbox)\s*(\{|[^\s{}\\$]+)/g;
  let found: string | null = null;
  for (const m of text.matchAll(re)) {
    if (m[1] !== "{") {
      found = m[1]!;
      continue;
    }
    const start = m.index! + m[0].length;
    let depth = 1;
    let i = start;
    for (; i < text.length && depth > 0; i++) {
      const c = text[i];
      if (c === "\\") i++;
      else if (c === "{") depth++;
      else if (c === "}") depth--;
    }
    if (depth === 0) found = text.slice(start, i - 1);
  }
  return found === null ? null : found.trim();
}

// `Final answer: …`, `Answer: …` and GSM8K's `#### …` at the start of a line (Markdown emphasis,
// quotes, list and heading markers allowed around the label), a `Final answer` heading alone on
// its line, or `the (final) answer is …` anywhere in a line (the common chain-of-thought ending).
const ANSWER_LINE = new RegExp(
  [
    String.raw`^[ \t>*_\-#]*(?:(?:\*\*|__)?(?:final\s+answer|answer)(?:\*\*|__)?\s*[:：](?:\*\*|__)?|####)[ \t]*(.*)$`,
    String.raw`^[ \t>*_\-#]*(?:\*\*|__)?final\s+answer(?:\*\*|__)?[ \t]*$`,
    String.raw`\bthe\s+(?:final\s+)?answer\s+is\s*[:：]?[ \t]*(.*)$`,
  ].join("|"),
  "gim",
);
const INLINE_ANSWER = /^the\s+(?:final\s+)?answer\s+is\s*[:：]?\s*(.*)$/i;

/** The answer in "the answer is 7. I hope it is correct." ends with its sentence. */
function firstSentence(text: string): string {
  const end = text.search(/\.(?:\s|$)/);
  return end >= 0 ? text.slice(0, end) : text;
}

/** Removes Markdown emphasis, code ticks, inline `$…$` and a sentence's closing period around an answer. */
function tidy(answer: string): string {
  let s = answer.trim();
  for (;;) {
    const before = s;
    s = s.replace(/^(\*\*|__|`+)([\s\S]*)\1$/, "$2").trim();
    s = s.replace(/^\$+([\s\S]*?)\$+$/, "$1").trim();
    s = s
      .replace(/^\\\(([\s\S]*)\\\)$/, "$1")
      .replace(/^\\\[([\s\S]*)\\\]$/, "$1")
      .trim();
    s = s.replace(/(?<!\.)\.$/, "").trim();
    if (s === before) return s;
  }
}

/**
 * The policy's final answer: the last `\boxed{}`, else the last "Final answer:" / "Answer:" /
 * "####" line (when the label stands alone, the next non-empty line), else the whole reply.
 */
export function extractFinalAnswer(text: string): string {
  const boxed = lastBoxed(text);
  if (boxed !== null) return boxed;

  let last: { value: string; end: number } | null = null;
  for (const m of text.matchAll(ANSWER_LINE)) {
    let value = m[1] ?? (m[2] === undefined ? "" : firstSentence(m[2]));
    // "Final answer: The final answer is $7$. I hope it is correct." (the Minerva format)
    const inner = INLINE_ANSWER.exec(value.trim());
    if (inner) value = firstSentence(inner[1]!);
    last = { value: value.trim(), end: m.index! + m[0].length };
  }
  if (last) {
    if (last.value !== "") return tidy(last.value);
    const next = text
      .slice(last.end)
      .split("\n")
      .find((line) => line.trim() !== "");
    if (next !== undefined) return tidy(next);
  }
  return tidy(text);
}
