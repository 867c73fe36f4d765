// The Porter (1980) stemmer, the one SQLite FTS5's `porter` tokenizer applies, so that an
// in-process BM25 matches the words the Durable Object's lexical channel matches. Only ASCII
// lowercase words of three or more letters are stemmed, as in SQLite.

const consonant = (w: string, i: number): boolean => {
  const c = w[i]!;
  if ("aeiou".includes(c)) return false;
  return c !== "y" || i === 0 || !consonant(w, i - 1);
};

/** m: the number of vowel-consonant sequences in a stem. */
function measure(s: string): number {
  let n = 0;
  let i = 0;
  while (i < s.length && consonant(s, i)) i++;
  while (i < s.length) {
    while (i < s.length && !consonant(s, i)) i++;
    if (i >= s.length) break;
    n++;
    while (i < s.length && consonant(s, i)) i++;
  }
  return n;
}

const hasVowel = (s: string) => [...s].some((_, i) => !consonant(s, i));
const doubleConsonant = (s: string) => s.length >= 2 && s.at(-1) === s.at(-2) && consonant(s, s.length - 1);
const cvc = (s: string) =>
  s.length >= 3 && consonant(s, s.length - 3) && !consonant(s, s.length - 2) && consonant(s, s.length - 1) && !"wxy".includes(s.at(-1)!);

const byLength = (rules: [string, string][]) => rules.sort((a, b) => b[0].length - a[0].length);
const STEP2 = byLength([
  ["ational", "ate"],
  ["tional", "tion"],
  ["enci", "ence"],
  ["anci", "ance"],
  ["izer", "ize"],
  ["abli", "able"],
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
]);
const STEP3 = byLength([
  ["icate", "ic"],
  ["ative", ""],
  ["alize", "al"],
  ["iciti", "ic"],
  ["ical", "ic"],
  ["ful", ""],
  ["ness", ""],
]);
const STEP4 = [
  "al",
  "ance",
  "ence",
  "er",
  "ic",
  "able",
  "ible",
  "ant",
  "ement",
  "ment",
  "ent",
  "ion",
  "ou",
  "ism",
  "ate",
  "iti",
  "ous",
  "ive",
  "ize",
].sort((a, b) => b.length - a.length);

export function stem(word: string): string {
  if (word.length <= 2 || !/^[a-z]+$/.test(word)) return word;
  let w = word;
  if (w.endsWith("sses") || w.endsWith("ies")) w = w.slice(0, -2);
  else if (!w.endsWith("ss") && w.endsWith("s")) w = w.slice(0, -1);
  let restore = false;
  if (w.endsWith("eed")) {
    if (measure(w.slice(0, -3)) > 0) w = w.slice(0, -1);
  } else if (w.endsWith("ed") && hasVowel(w.slice(0, -2))) {
    w = w.slice(0, -2);
    restore = true;
  } else if (w.endsWith("ing") && hasVowel(w.slice(0, -3))) {
    w = w.slice(0, -3);
    restore = true;
  }
  if (restore) {
    if (w.endsWith("at") || w.endsWith("bl") || w.endsWith("iz")) w += "e";
    else if (doubleConsonant(w) && !"lsz".includes(w.at(-1)!)) w = w.slice(0, -1);
    else if (measure(w) === 1 && cvc(w)) w += "e";
  }
  if (w.endsWith("y") && hasVowel(w.slice(0, -1))) w = `${w.slice(0, -1)}i`;
  for (const rules of [STEP2, STEP3]) {
    const rule = rules.find(([suffix]) => w.endsWith(suffix));
    if (rule && measure(w.slice(0, -rule[0].length)) > 0) w = w.slice(0, -rule[0].length) + rule[1];
  }
  const suffix = STEP4.find((s) => w.endsWith(s));
  if (suffix) {
    const base = w.slice(0, -suffix.length);
    if (measure(base) > 1 && (suffix !== "ion" || /[st]$/.test(base))) w = base;
  }
  if (w.endsWith("e")) {
    const base = w.slice(0, -1);
    if (measure(base) > 1 || (measure(base) === 1 && !cvc(base))) w = base;
  }
  if (measure(w) > 1 && doubleConsonant(w) && w.endsWith("l")) w = w.slice(0, -1);
  return w;
}
