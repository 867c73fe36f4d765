/** Verifiers that compare text: exact, contains, regex. */
import { extractFinalAnswer } from "./extract";
import type { Verdict } from "./schema";

/** Shows a value in reasoning, shortened so a verdict stays readable. */
export function quote(text: string, max = 120): string {
  const s = text.length > max ? `${text.slice(0, max)}…` : text;
  return JSON.stringify(s);
}

export const pass = (reasoning: string): Verdict => ({ reward: 1, reasoning });
export const fail = (reasoning: string): Verdict => ({ reward: 0, reasoning });

/**
 * Case, whitespace and punctuation folded: `Hello,  World!` and `hello world` are equal. Word
 * separators (hyphens, slashes, commas) become spaces and apostrophes inside words vanish, so
 * `well-known` equals `well known` and `don't` equals `dont`; a point or comma between digits is
 * kept, so `3.14` never equals `314`.
 */
export function normaliseText(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/(?<=\p{L})['’](?=\p{L})/gu, "")
    .replace(/(?<!\d)[.,]|[.,](?!\d)|[^\p{L}\p{N}\s.,]/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
}

export function verifyExact(answer: string, groundTruth: string): Verdict {
  const got = extractFinalAnswer(answer);
  const want = extractFinalAnswer(groundTruth);
  const a = normaliseText(got);
  const b = normaliseText(want);
  if (a === b)
    return pass(`The final answer ${quote(got)} matches the expected answer ${quote(want)} (ignoring case, whitespace and punctuation).`);
  return fail(`The final answer ${quote(got)} does not match the expected answer ${quote(want)} (compared as ${quote(a)} vs ${quote(b)}).`);
}

const foldSpace = (s: string) => s.normalize("NFKC").replace(/\s+/g, " ").trim();

export function verifyContains(answer: string, groundTruth: string, caseSensitive: boolean): Verdict {
  const fold = (s: string) => (caseSensitive ? foldSpace(s) : foldSpace(s).toLowerCase());
  const how = caseSensitive ? "case-sensitive" : "ignoring case";
  if (fold(answer).includes(fold(groundTruth))) return pass(`The answer contains the expected text ${quote(groundTruth)} (${how}).`);
  return fail(`The answer does not contain the expected text ${quote(groundTruth)} (${how}).`);
}

/** The pattern may describe the whole reply or just its final answer, so anchored patterns work on both. */
export function verifyRegex(answer: string, pattern: string, flags = ""): Verdict {
  const re = new RegExp(pattern, flags);
  const final = extractFinalAnswer(answer);
  if (re.test(answer)) return pass(`The answer matches /${pattern}/${flags}.`);
  if (re.test(final)) return pass(`The final answer ${quote(final)} matches /${pattern}/${flags}.`);
  return fail(`Neither the answer nor its final answer ${quote(final)} matches /${pattern}/${flags}.`);
}
