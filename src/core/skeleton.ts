/**
 * The readings of a text a filter has to match against. A model reads through disguises a regular
 * expression does not: compatibility forms (full-width letters), look-alike letters from other
 * scripts (Cyrillic `Ѕ`, Armenian `օ`, dotless `ı`, small capitals `ɪɢɴᴏʀᴇ`), invisible characters
 * inside words, and keywords split by spaces or punctuation (`i g n o r e`, `ig-nore`). Each view
 * below undoes one kind of disguise so that the patterns only need to know plain English.
 */
import { CONFUSABLE_LETTERS } from "./confusables-data";

// Letters TR39 does not list as confusable with an ASCII letter (it keeps small capitals and
// small-capital-shaped Cyrillic and Greek apart from lowercase), but which a model reads as that
// letter all the same.
const READ_AS: Record<string, string> = {
  a: "ᴀ",
  b: "ʙв",
  d: "ᴅ",
  e: "ᴇε",
  f: "ꜰ",
  g: "ɢ",
  h: "ʜн",
  j: "ᴊ",
  k: "ᴋкκ",
  l: "ʟ",
  m: "ᴍм",
  n: "ɴ",
  p: "ᴘ",
  r: "ʀ",
  t: "ᴛтτ",
  x: "χ",
};

/** Look-alike to letter; AMBIGUOUS for the look-alikes of both `I` and `l`. */
const AMBIGUOUS = "?";
const FOLD = new Map<string, string>();
for (const [letter, chars] of Object.entries(CONFUSABLE_LETTERS)) for (const c of chars) FOLD.set(c, letter === "l" ? AMBIGUOUS : letter);
for (const [letter, chars] of Object.entries(READ_AS)) for (const c of chars) if (!FOLD.has(c)) FOLD.set(c, letter);
// Squared, negative circled and negative squared capitals (🄰 🅐 🅰) and the regional indicator
// letters (🇦): NFKC leaves them as symbols, a model spells them out.
for (let i = 0; i < 26; i++)
  for (const base of [0x1f130, 0x1f150, 0x1f170, 0x1f1e6]) FOLD.set(String.fromCodePoint(base + i), String.fromCharCode(97 + i));
const FOLD_RE = new RegExp(`[${[...FOLD.keys()].join("").replace(/[\]\\^-]/g, "\\$&")}]`, "gu");

/**
 * Characters that render as nothing or as a blank: every default-ignorable code point and format
 * character (zero-width and bidi controls, U+061C, U+180E, U+FFF9-FFFB, tag characters, variation
 * selectors), the blank-looking letters that are neither (Hangul fillers, the braille blank), and
 * U+0000.
 */
const BLANK_SRC = "\\p{Default_Ignorable_Code_Point}\\p{Cf}\\u115F\\u1160\\u3164\\uFFA0\\u2800\\x00";
/** Those and the other control characters but tab and line breaks, all dropped before matching. */
const INVISIBLE_RE = new RegExp(`[${BLANK_SRC}\\x01-\\x08\\x0B\\x0C\\x0E-\\x1F\\x7F-\\x9F]`, "gu");

/**
 * Invisible characters that count as hiding something. Left out, because ordinary text uses them:
 * the zero-width joiner (emoji sequences), variation selectors (emoji and CJK presentation), the
 * soft hyphen (hyphenation hints), the Arabic number signs, and control characters such as the
 * escape codes of terminal output that tool results carry (they are still dropped before matching).
 */
const HIDDEN_RE = new RegExp(
  `(?![\\u200D\\u00AD\\uFE00-\\uFE0F\\u{E0100}-\\u{E01EF}\\u0600-\\u0605\\u06DD\\u070F\\u08E2])[${BLANK_SRC}]`,
  "u",
);

/** The text without its invisible characters (a served line shows what a reviewer saw). */
export function stripInvisible(text: string): string {
  return text.replace(INVISIBLE_RE, "");
}

export function hasHiddenCharacters(text: string): boolean {
  return HIDDEN_RE.test(text);
}

/** Compatibility forms folded and invisible characters removed; line breaks kept. */
export function visibleText(text: string): string {
  // Every kind of line break stays one (the role-line check needs them); other controls go.
  return text
    .normalize("NFKC")
    .replace(/[\v\f\u0085\u2028\u2029]/g, "\n")
    .replace(INVISIBLE_RE, "");
}

/** The visible text with quotes and blanks made plain, on one line. */
export function plainView(text: string): string {
  return visibleText(text)
    .replace(/[‘’ʼ`´]/g, "'")
    .replace(/[“”„]/g, '"')
    .replace(/\s+/gu, " ");
}

/**
 * The TR39-style skeleton of a plain view: accents dropped and every look-alike folded to the
 * ASCII letter it imitates. TR39 gives capital `I` and small `l` one prototype, so the look-alikes
 * of both are read as `one` (callers try both).
 */
export function skeletonView(plain: string, one: "i" | "l" = "l"): string {
  return plain
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .replace(FOLD_RE, (c) => {
      const letter = FOLD.get(c)!;
      return letter === AMBIGUOUS ? one : letter;
    });
}

/**
 * Rejoins keywords split inside a word: letters spaced out one by one (`i g n o r e  a l l`, words
 * kept apart by wider gaps) and words broken by hyphens, dots, underscores or similar
 * (`ig-nore`, `ig.nore`, `ig_nore`). Works on the text before blanks are collapsed.
 */
export function despacedText(text: string): string {
  return visibleText(text)
    .replace(/(?<![\p{L}\p{N}])\p{L}(?:[ \u00A0._\-·•*~+|/\\][\p{L}](?![\p{L}\p{N}]))+/gu, (run) => run.replace(/[^\p{L}]/gu, ""))
    .replace(/(?<=\p{L})[._\-·•*~|](?=\p{L})/gu, "");
}

/**
 * Every letter and digit run together, lower-cased: what is left of a keyword however it was
 * split. Patterns that read this view have no word boundaries to lean on, so they must be long.
 */
export function compactView(skeleton: string): string {
  return skeleton.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
}
