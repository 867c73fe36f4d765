/**
 * The token SQLite FTS5's `porter unicode61` tokenizer makes of a query word, so BM25 computed
 * from a snapshot of the agent's FTS5 statistics (bm25.ts) matches exactly the rows and terms the
 * object's MATCH does. Only ASCII words are taken: FTS5 folds other letters through its own
 * Unicode tables, which this does not reproduce, so a query with such a word is ranked by the
 * object. The stemmer follows FTS5's (fts5_tokenize.c): Porter's algorithm with his published
 * variant's rules (`bli` → `ble`, `logi` → `log`), applied to tokens of 3 to 64 bytes, digits
 * counting as consonants. test/memory/fts5-porter.test.ts checks it against FTS5 itself.
 */

const MAX_STEMMED = 64;

const isVowel = (c: string, yIsVowel: boolean) => c === "a" || c === "e" || c === "i" || c === "o" || c === "u" || (yIsVowel && c === "y");

/**
 * The end of the first vowel-consonant sequence in w[start, end), as an index, or 0 when there is
 * none; `prevConsonant` says whether the letter before `start` was a consonant (a `y` after one is a vowel).
 */
function vcEnd(w: string, start: number, end: number, prevConsonant: boolean): number {
  let consonant = prevConsonant;
  let i = start;
  for (; i < end; i++) {
    consonant = !isVowel(w[i]!, consonant);
    if (!consonant) break;
  }
  for (i++; i < end; i++) {
    consonant = !isVowel(w[i]!, consonant);
    if (consonant) return i + 1;
  }
  return 0;
}

/** m > 0 for the stem w[0, n). */
const mGt0 = (w: string, n: number) => vcEnd(w, 0, n, false) !== 0;
/** m > 1. */
function mGt1(w: string, n: number): boolean {
  const first = vcEnd(w, 0, n, false);
  return first !== 0 && vcEnd(w, first, n, true) !== 0;
}
/** m = 1. */
function mEq1(w: string, n: number): boolean {
  const first = vcEnd(w, 0, n, false);
  return first !== 0 && vcEnd(w, first, n, true) === 0;
}
/** *o: the stem ends consonant-vowel-consonant, the last not w, x or y. */
function endsCvc(w: string, n: number): boolean {
  const last = w[n - 1];
  if (last === "w" || last === "x" || last === "y") return false;
  let mask = 0;
  let consonant = false;
  for (let i = 0; i < n; i++) {
    consonant = !isVowel(w[i]!, consonant);
    mask = ((mask << 1) | (consonant ? 1 : 0)) & 7;
  }
  return mask === 5;
}
/** *v*: the stem holds a vowel (a `y` counts as one anywhere but first). */
function hasVowel(w: string, n: number): boolean {
  for (let i = 0; i < n; i++) if (isVowel(w[i]!, i > 0)) return true;
  return false;
}

type Rule = readonly [suffix: string, replacement: string, when: (w: string, n: number) => boolean];
const mGt1SorT = (w: string, n: number) => (w[n - 1] === "s" || w[n - 1] === "t") && mGt1(w, n);

const STEP2: readonly Rule[] = (
  [
    ["ational", "ate"],
    ["tional", "tion"],
    ["enci", "ence"],
    ["anci", "ance"],
    ["izer", "ize"],
    ["logi", "log"],
    ["bli", "ble"],
    ["alli", "al"],
    ["entli", "ent"],
    ["eli", "e"],
    ["ousli", "ous"],
    ["ization", "ize"],
    ["ation", "ate"],
    ["ator", "ate"],
    ["alism", "al"],
    ["iveness", "ive"],
    ["fulness", "ful"],
    ["ousness", "ous"],
    ["aliti", "al"],
    ["iviti", "ive"],
    ["biliti", "ble"],
  ] as const
).map(([s, r]) => [s, r, mGt0] as const);
const STEP3: readonly Rule[] = (
  [
    ["ical", "ic"],
    ["ness", ""],
    ["icate", "ic"],
    ["iciti", "ic"],
    ["ful", ""],
    ["ative", ""],
    ["alize", "al"],
  ] as const
).map(([s, r]) => [s, r, mGt0] as const);
const STEP4: readonly Rule[] = [
  ...["al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent"].map((s) => [s, "", mGt1] as const),
  ["ion", "", mGt1SorT],
  ...["ou", "ism", "ate", "iti", "ous", "ive", "ize"].map((s) => [s, "", mGt1] as const),
];

/**
 * The first rule whose suffix the word ends with (and is longer than) applies if its condition
 * holds; no later rule is tried either way. Rules whose suffixes differ in their next-to-last letter
 * never compete (FTS5 switches on that letter), so one ordered list per step decides the same.
 */
function applyStep(w: string, rules: readonly Rule[]): string {
  for (const [suffix, replacement, when] of rules) {
    if (w.length > suffix.length && w.endsWith(suffix)) {
      const stem = w.length - suffix.length;
      return when(w, stem) ? w.slice(0, stem) + replacement : w;
    }
  }
  return w;
}

/** FTS5's porter stem of one lowercase ASCII token. */
export function porterStem(token: string): string {
  if (token.length < 3 || token.length > MAX_STEMMED) return token;
  let w = token;
  // Step 1a.
  if (w.endsWith("s")) {
    if (w[w.length - 2] === "e") {
      w = (w.length > 4 && w.endsWith("sses")) || (w.length > 3 && w[w.length - 3] === "i") ? w.slice(0, -2) : w.slice(0, -1);
    } else if (w[w.length - 2] !== "s") w = w.slice(0, -1);
  }
  // Step 1b.
  let trimmed = false;
  if (w.length > 3 && w.endsWith("eed")) {
    if (mGt0(w, w.length - 3)) w = w.slice(0, -1);
  } else if (w.length > 2 && w.endsWith("ed")) {
    if (hasVowel(w, w.length - 2)) (w = w.slice(0, -2)), (trimmed = true);
  } else if (w.length > 3 && w.endsWith("ing")) {
    if (hasVowel(w, w.length - 3)) (w = w.slice(0, -3)), (trimmed = true);
  }
  if (trimmed) {
    if (w.length > 2 && (w.endsWith("at") || w.endsWith("bl") || w.endsWith("iz"))) w += "e";
    else {
      const c = w[w.length - 1]!;
      if (!isVowel(c, false) && c !== "l" && c !== "s" && c !== "z" && c === w[w.length - 2]) w = w.slice(0, -1);
      else if (mEq1(w, w.length) && endsCvc(w, w.length)) w += "e";
    }
  }
  // Step 1c.
  if (w.endsWith("y") && hasVowel(w, w.length - 1)) w = `${w.slice(0, -1)}i`;
  w = applyStep(applyStep(applyStep(w, STEP2), STEP3), STEP4);
  // Step 5a.
  if (w.endsWith("e")) {
    const n = w.length - 1;
    if (mGt1(w, n) || (mEq1(w, n) && !endsCvc(w, n))) w = w.slice(0, -1);
  }
  // Step 5b.
  if (w.length > 1 && w.endsWith("ll") && mGt1(w, w.length - 1)) w = w.slice(0, -1);
  return w;
}

const ASCII_TOKEN = /^[a-z0-9]+$/;

/** The FTS5 term a query word (as ftsTerms gives it) matches, or null when it is not ASCII. */
export const ftsTermOf = (word: string): string | null => (ASCII_TOKEN.test(word) ? porterStem(word) : null);
