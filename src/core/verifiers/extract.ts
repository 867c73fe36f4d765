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

// `Final answer: …`, `Answer: …` and GSM8K's `#### …` at the start of a line (Markdown emphasis
// and list markers allowed around the label), or `the final answer is …` anywhere in a line.
const ANSWER_LINE =
  /^[ \t>*_\-#]*(?:(?:\*\*|__)?(?:final\s+answer|answer)(?:\*\*|__)?\s*[:：](?:\*\*|__)?|####)[ \t]*(.*)$|\bthe\s+final\s+answer\s+is\s*[:：]?[ \t]*(.*)$/gim;

/** Removes Markdown emphasis, code ticks, inline `$…$` and a sentence's closing period around an answer. */
function tidy(answer: string): string {
  let s = answer.trim();
  for (;;) {
    const before = s;
    s = s.replace(/^(\*\*|__|`+)([\s\S]*)\1$/, "$2").trim();
    s = s.replace(/^\$+([\s\S]*?)\$+$/, "$1").trim();
    s = s.replace(/^\\\(([\s\S]*)\\\)$/, "$1").replace(/^\\\[([\s\S]*)\\\]$/, "$1").trim();
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
    last = { value: (m[1] ?? m[2] ?? "").trim(), end: m.index! + m[0].length };
  }
  if (last) {
    if (last.value !== "") return tidy(last.value);
    const next = text.slice(last.end).split("\n").find((line) => line.trim() !== "");
    if (next !== undefined) return tidy(next);
  }
  return tidy(text);
}
