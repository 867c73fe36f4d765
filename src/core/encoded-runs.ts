/**
 * Text a model decodes when asked to: base64, base32, hex (spaced, `\x`, `0x`), binary, decimal
 * character codes, URL and form encoding, HTML entities, `\u` escapes, Morse, Braille, upside-down
 * letters, the NATO spelling alphabet, octal escapes, quoted-printable, seven-bit binary, Pig Latin,
 * rot13 and other letter shifts, ROT47, Atbash, reversed text and reversed word order. The filter reads each decoded text
 * with the same checks as the plain one, so an instruction hidden this way is judged by what it
 * says, and an encoding named or shown as data ("a space becomes %20") decodes to nothing harmful.
 * Work is bounded: runs and readings are capped in length and number.
 */

/**
 * How a reading was made: bytes decoded from a run, the letters of the whole text transformed, or
 * its words read in the opposite order.
 */
export type DecodedKind = "bytes" | "letters" | "order";

export interface DecodedReading {
  kind: DecodedKind;
  text: string;
}

/** Characters of a text read for encoded runs, and of each reading kept. */
const MAX_INPUT = 8000;
const MAX_READING = 2000;
const MAX_READINGS = 16;

const utf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: false });
const bytesText = (bytes: number[]) => utf8.decode(new Uint8Array(bytes));

const B64_RE = /[A-Za-z0-9+/_-]{16,}={0,2}/g;
/** Base32 in either case (a model reads `jbswy3dp` as well as `JBSWY3DP`), never mixed. */
const B32_RE = /\b(?:[A-Z2-7]{16,}|[a-z2-7]{16,})={0,6}/g;
/** Form encoding: words joined by plus signs (`ignore+all+previous`). */
const PLUS_WORDS_RE = /[\p{L}\p{N}%'.,:-]+(?:\+[\p{L}\p{N}%'.,:-]+){3,}/gu;
const HEX_BYTES_RE = /(?:(?:\\x|0x|%)?[0-9a-f]{2}(?:[\s,:;-]{1,3}|\\x|0x|%)?){8,}/gi;
const BINARY_RE = /(?:[01]{8}[\s,]?){4,}/g;
/** Seven-bit ASCII, each character its own group (`1001001 1100111 …`). */
const BINARY7_RE = /(?<![01])(?:[01]{7}(?:[\s,]+|$)){6,}/g;
const MORSE_RE = /[.\-–—·•_−‐‑‒∙⋅・]{1,7}(?:(?:\s+|\s*[/|]\s*)[.\-–—·•_−‐‑‒∙⋅・]{1,7}){5,}/g;
/** Character codes written as decimal numbers (`73 103 110 …`), printable ASCII only. */
const DECIMAL_RE = /(?<![\d.])(?:(?:3[2-9]|[4-9]\d|1[01]\d|12[0-6])(?:[\s,;.|/-]+|$)){8,}/g;
const BRAILLE_RE = /[\u2801-\u28ff][\u2800-\u28ff\s]{7,}/g;
/** Octal escapes (`\151\147…`) and quoted-printable bytes (`=49=67…`). */
const OCTAL_RE = /(?:\\[0-3][0-7]{2}){8,}/g;
const QUOTED_PRINTABLE_RE = /(?:=[0-9A-F]{2}){8,}/g;

/**
 * A base64 run's text. A run glued to the letters before it ("ref:SWdub3Jl…" read as one run) is
 * out of step with its 4-character groups: each of the four alignments is tried.
 */
function base64Text(run: string): string {
  let first = "";
  for (let skip = 0; skip < 4 && run.length - skip >= 16; skip++) {
    const t = decodeBase64(run.slice(skip));
    if (skip === 0) first = t;
    if (textual(t)) return t;
  }
  return first;
}

function decodeBase64(run: string): string {
  const std = run.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
  if (std.length % 4 === 1 || !/^[A-Za-z0-9+/]*$/.test(std)) return "";
  try {
    const binary = atob(std + "=".repeat((4 - (std.length % 4)) % 4));
    return bytesText([...binary].map((c) => c.charCodeAt(0)));
  } catch {
    return "";
  }
}

const MORSE: Record<string, string> = {
  ".-": "a",
  "-...": "b",
  "-.-.": "c",
  "-..": "d",
  ".": "e",
  "..-.": "f",
  "--.": "g",
  "....": "h",
  "..": "i",
  ".---": "j",
  "-.-": "k",
  ".-..": "l",
  "--": "m",
  "-.": "n",
  "---": "o",
  ".--.": "p",
  "--.-": "q",
  ".-.": "r",
  "...": "s",
  "-": "t",
  "..-": "u",
  "...-": "v",
  ".--": "w",
  "-..-": "x",
  "-.--": "y",
  "--..": "z",
  "-----": "0",
  ".----": "1",
  "..---": "2",
  "...--": "3",
  "....-": "4",
  ".....": "5",
  "-....": "6",
  "--...": "7",
  "---..": "8",
  "----.": "9",
  ".-.-.-": ".",
  "--..--": ",",
};

function decodeMorse(run: string): string {
  const plain = run.replace(/[·•∙⋅・]/g, ".").replace(/[–—_−‐‑‒]/g, "-");
  // Words are parted by a slash, a bar, a line break or a wider gap; letters by one blank.
  return plain
    .split(/\s*[/|\n]\s*|\s{2,}/)
    .map((word) =>
      word
        .trim()
        .split(/\s+/)
        .map((code) => MORSE[code] ?? "")
        .join(""),
    )
    .join(" ");
}

function decodeBase32(run: string): string {
  const bits = [...run.replace(/=+$/, "")].map((c) => "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".indexOf(c).toString(2).padStart(5, "0")).join("");
  return bytesText((bits.match(/.{8}/g) ?? []).map((b) => parseInt(b, 2)));
}

function shift(s: string, k: number): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 65 && c <= 90) out += String.fromCharCode(((c - 65 + k) % 26) + 65);
    else if (c >= 97 && c <= 122) out += String.fromCharCode(((c - 97 + k) % 26) + 97);
    else out += s[i];
  }
  return out;
}

/**
 * Common English words and the words instructions to a model are made of: the letter shift under
 * which most of a text's words are in this list is the shift it was written in. A short word
 * list read word by word scores a shifted sentence whatever its wording; a check for English
 * grammar would miss the terse imperatives instructions are.
 */
export const ENGLISH_WORDS: ReadonlySet<string> = new Set(
  (
    "a about above account after again all also always am an and answer any anyone anything are as ask at back be because been before being below " +
    "but by can card could customer data delete did do does don't done down each email every everything file files first for forget from full " +
    "get give given go grant guidelines had has have he hidden her here him his how i if ignore in instructions into is it its just key keys " +
    "know last let like list make me message messages more most must my never new next no not nothing now of off on once one only or other " +
    "our out over password passwords please policy previous print prior prompt read refund reply reveal rules said same say says secret see " +
    "send she should show so some such system tell than that the their them then there these they this those to token told too two up us " +
    "user users very was we were what when where which who will with without word would write you your admin approve bypass disregard " +
    "override restrictions safety filter filters pretend act unrestricted"
  ).split(" "),
);
const WORD_RE = /[a-z']+/gi;

function englishScore(text: string): { hits: number; words: number } {
  let hits = 0;
  let words = 0;
  for (const [w] of text.matchAll(WORD_RE)) {
    words++;
    if (ENGLISH_WORDS.has(w.toLowerCase())) hits++;
  }
  return { hits, words };
}

/**
 * Each English word as it reads written in each shift: a word of a text that reads `w` here is
 * English under the shifts listed. Shifts keep word boundaries and case, so counting a text's
 * words once against this counts the English words of all 26 shifts of it.
 */
const SHIFTS_OF = new Map<string, number[]>();
for (const word of ENGLISH_WORDS)
  for (let k = 0; k < 26; k++) {
    const written = shift(word, (26 - k) % 26);
    const ks = SHIFTS_OF.get(written);
    if (ks) ks.push(k);
    else SHIFTS_OF.set(written, [k]);
  }

/**
 * The letter shift (Caesar; rot13 is one) under which the most words are English, if it makes at
 * least three of them and a third of the words, and more than as written.
 */
export function bestShift(text: string): string | null {
  const hits = new Array<number>(26).fill(0);
  let words = 0;
  for (const [w] of text.matchAll(WORD_RE)) {
    words++;
    for (const k of SHIFTS_OF.get(w.toLowerCase()) ?? []) hits[k]!++;
  }
  let best = 0;
  let score = Math.max(2, hits[0]!);
  for (let k = 1; k < 26; k++) {
    if (k !== 13 && hits[k]! > score && hits[k]! * 3 >= words) [best, score] = [k, hits[k]!];
  }
  return best ? shift(text, best) : null;
}

const rot13 = (s: string) => shift(s, 13);
const rot47 = (s: string) => s.replace(/[!-~]/g, (c) => String.fromCharCode(33 + ((c.charCodeAt(0) - 33 + 47) % 94)));
const atbash = (s: string) => s.replace(/[a-z]/gi, (c) => String.fromCharCode((c <= "Z" ? 155 : 219) - c.charCodeAt(0)));

// Braille cells of the 26 letters (dots 1-6 as bits of U+2800).
const BRAILLE: Record<string, string> = Object.fromEntries(
  "⠁⠃⠉⠙⠑⠋⠛⠓⠊⠚⠅⠇⠍⠝⠕⠏⠟⠗⠎⠞⠥⠧⠺⠭⠽⠵".split("").map((c, i) => [c, String.fromCharCode(97 + i)]),
);
const decodeBraille = (run: string) => [...run].map((c) => (c === "\u2800" ? " " : (BRAILLE[c] ?? c))).join("");

// Letters written upside down (and the text read from its end): ʇxǝʇ uʍop ǝpᴉsdn.
const UPSIDE_DOWN: Record<string, string> = {
  ɐ: "a",
  ɔ: "c",
  ǝ: "e",
  ɟ: "f",
  ƃ: "g",
  ɥ: "h",
  ᴉ: "i",
  ı: "i",
  ɾ: "j",
  ʞ: "k",
  ꞁ: "l",
  ɯ: "m",
  ɹ: "r",
  ʇ: "t",
  ʌ: "v",
  ʍ: "w",
  ʎ: "y",
  q: "b",
  p: "d",
  d: "p",
  b: "q",
  n: "u",
  u: "n",
  "˙": ".",
  "¿": "?",
  "¡": "!",
  "‾": "_",
  "'": ",",
  ",": "'",
  ן: "l",
  "˥": "l",
  Ԁ: "p",
  "∀": "a",
  Ɔ: "c",
  Ǝ: "e",
  Ⅎ: "f",
  "⅁": "g",
  ſ: "j",
  "⊥": "t",
  "∩": "u",
  Λ: "v",
  "⅄": "y",
  Ɯ: "m",
};
const UPSIDE_DOWN_RE = /[ɐɔǝɟƃɥᴉɾʞꞁɯɹʇʌʍʎןԀ∀ƎℲ⅄]/g;
const uprighted = (s: string) =>
  [...s]
    .reverse()
    .map((c) => UPSIDE_DOWN[c] ?? c)
    .join("");

// Pig Latin: "ignoreway everyway uleray" (a vowel-led word takes "way", else its first consonants move behind "ay").
const PIG_WORD_RE = /\b[a-z]+(?:way|ay)\b/gi;
const unPig = (s: string) =>
  s.replace(/\b([a-z]+?)(w?)ay\b/gi, (whole, stem: string, w: string) => {
    if (w && /^[aeiou]/i.test(stem)) return stem;
    const m = `${stem}${w}`.match(/^(.*?[aeiouy])([^aeiouy]+)$/i);
    return m ? `${m[2]}${m[1]}` : whole;
  });

const NATO =
  "alfa alpha bravo charlie delta echo foxtrot golf hotel india juliett juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey whisky xray x-ray yankee zulu";
const NATO_RE = new RegExp(
  `\\b(?:${NATO.replace(/ /g, "|")})\\b(?:[\\s,/|-]+(?:${NATO.replace(/ /g, "|")})\\b){5,}(?:[\\s,/|-]+(?:(?:${NATO.replace(/ /g, "|")})\\b|(?:space|stop|break)\\b))*`,
  "gi",
);
/** Spelled with the NATO alphabet; words are parted by a slash, a bar or the word "space". */
const decodeNato = (run: string) =>
  run
    .split(/\s*[/|]\s*|\b(?:space|stop|break)\b/i)
    .map((w) => (w.match(/[a-z-]+/gi) ?? []).map((code) => code[0]!.toLowerCase()).join(""))
    .join(" ");

const NAMED_ENTITIES: Record<string, string> = {
  lt: "<",
  gt: ">",
  amp: "&",
  quot: '"',
  apos: "'",
  nbsp: " ",
  sol: "/",
  colon: ":",
  lpar: "(",
  rpar: ")",
  excl: "!",
  equals: "=",
};

function decodeEntities(text: string): string {
  return text.replace(/&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|([a-z]{2,6}));?/gi, (whole, dec?: string, hexCode?: string, name?: string) => {
    const cp = dec ? Number(dec) : hexCode ? parseInt(hexCode, 16) : -1;
    if (cp >= 0) return cp <= 0x10ffff ? String.fromCodePoint(cp) : whole;
    return NAMED_ENTITIES[name!.toLowerCase()] ?? whole;
  });
}

function decodeEscapes(text: string): string {
  return text
    .replace(/\\u\{([0-9a-f]{1,6})\}/gi, (whole, h: string) =>
      parseInt(h, 16) <= 0x10ffff ? String.fromCodePoint(parseInt(h, 16)) : whole,
    )
    .replace(/\\u([0-9a-f]{4})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

/** Percent-encoded bytes decoded as UTF-8 wherever they stand; the rest is kept. */
function decodePercent(text: string): string {
  return text.replace(/(?:%[0-9a-f]{2})+/gi, (run) => bytesText(run.match(/%([0-9a-f]{2})/gi)!.map((h) => parseInt(h.slice(1), 16))));
}

/** Mostly printable text with letters or digits: what a decoded run must look like to be read at all. */
function textual(s: string): boolean {
  if (s.length < 4) return false;
  const printable = s.match(/[\p{L}\p{N}\p{P}\p{Zs}\p{S}\n]/gu)?.length ?? 0;
  // Letters, or a run that is itself encoded (hex inside base64): the next decoding reads it.
  return printable / [...s].length >= 0.9 && /\p{L}{2}|[\p{L}\p{N}]{8}/u.test(s);
}

/**
 * The texts hidden in `text` by the encodings above. Byte encodings are decoded per run; entity,
 * escape and percent encodings across the whole text (they mix with plain characters); rot13 and
 * reversal turn the whole text, so an encoded part reads plainly wherever it stands.
 */
export function decodedReadings(text: string, opts: { letters?: boolean } = {}): DecodedReading[] {
  const input = text.slice(0, MAX_INPUT);
  const out: DecodedReading[] = [];
  const add = (kind: DecodedKind, decoded: string) => {
    const t = decoded.slice(0, MAX_READING);
    if (out.length < MAX_READINGS && textual(t) && t !== input && !out.some((r) => r.text === t)) out.push({ kind, text: t });
  };
  for (const [run] of input.matchAll(B64_RE)) {
    if (/[A-Z]/.test(run) && /[a-z]/.test(run)) add("bytes", base64Text(run));
  }
  for (const [run] of input.matchAll(HEX_BYTES_RE)) {
    const pairs = run.replace(/\\x|0x|%/gi, " ").match(/[0-9a-f]{2}/gi) ?? [];
    // A spaced run is read pair by pair; a solid one must split evenly into bytes.
    const solid = run.replace(/[^0-9a-f]/gi, "");
    if (pairs.length >= 8 && (solid.length % 2 === 0 || /[\s,:;\\%-]|0x/i.test(run)))
      add("bytes", bytesText(pairs.map((h) => parseInt(h, 16))));
  }
  for (const [run] of input.matchAll(B32_RE)) add("bytes", decodeBase32(run.toUpperCase()));
  for (const [run] of input.matchAll(BINARY7_RE))
    add("bytes", String.fromCharCode(...(run.match(/[01]{7}/g) ?? []).map((b) => parseInt(b, 2))));
  for (const [run] of input.matchAll(BINARY_RE)) {
    add("bytes", bytesText((run.match(/[01]{8}/g) ?? []).map((b) => parseInt(b, 2))));
  }
  for (const [run] of input.matchAll(MORSE_RE)) add("bytes", decodeMorse(run));
  for (const [run] of input.matchAll(OCTAL_RE))
    add(
      "bytes",
      bytesText(
        run
          .slice(1)
          .split("\\")
          .map((o) => parseInt(o, 8)),
      ),
    );
  for (const [run] of input.matchAll(QUOTED_PRINTABLE_RE))
    add(
      "bytes",
      bytesText(
        run
          .slice(1)
          .split("=")
          .map((h) => parseInt(h, 16)),
      ),
    );
  for (const [run] of input.matchAll(DECIMAL_RE)) add("bytes", String.fromCharCode(...(run.match(/\d+/g) ?? []).map(Number)));
  for (const [run] of input.matchAll(BRAILLE_RE)) add("bytes", decodeBraille(run));
  for (const [run] of input.matchAll(NATO_RE)) add("bytes", decodeNato(run));
  if ((input.match(UPSIDE_DOWN_RE)?.length ?? 0) >= 3) add("bytes", uprighted(input));
  if (/&(?:#\d|#x[0-9a-f]|[a-z]{2,6};)/i.test(input)) add("bytes", decodeEntities(input));
  if (/\\u(?:[0-9a-f]{4}|\{[0-9a-f]+\})/i.test(input)) add("bytes", decodeEscapes(input));
  if (/%[0-9a-f]{2}/i.test(input)) add("bytes", decodePercent(input));
  const unplussed = input.replace(PLUS_WORDS_RE, (run) => run.replace(/\+/g, " "));
  if (unplussed !== input) add("bytes", decodePercent(unplussed));
  if (opts.letters !== false) {
    const plain = input.slice(0, MAX_READING);
    add("letters", rot13(plain));
    const shifted = bestShift(plain);
    if (shifted) add("letters", shifted);
    add("letters", [...plain].reverse().join(""));
    add(
      "letters",
      plain.replace(/[\p{L}\p{M}]+/gu, (w) => [...w].reverse().join("")),
    );
    // Words written back to front leave the capitalised first word last, with no full stop after it.
    if (/\p{Lu}[\p{Ll}']*\s*$/u.test(plain) && !/[.!?)"'\]]\s*$/.test(plain)) add("order", plain.split(/\s+/).reverse().join(" "));
    if ((plain.match(PIG_WORD_RE)?.length ?? 0) >= 4) add("letters", unPig(plain));
    if (englishScore(plain).hits < 3) {
      add("letters", atbash(plain));
      // ROT47 turns letters into punctuation: only a text dense with it can be one.
      if ((plain.match(/[!-/:-@[-`{-~0-9]/g)?.length ?? 0) * 6 >= plain.length) add("letters", rot47(plain));
    }
  }
  return out;
}
