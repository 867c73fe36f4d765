/**
 * Text a model decodes when asked to: base64, base32, hex (spaced, `\x`, `0x`), binary, URL and
 * form encoding, HTML entities, `\u` escapes, Morse, rot13 and other letter shifts, reversed text. The filter reads each decoded text
 * with the same checks as the plain one, so an instruction hidden this way is judged by what it
 * says, and an encoding named or shown as data ("a space becomes %20") decodes to nothing harmful.
 * Work is bounded: runs and readings are capped in length and number.
 */

/** How a reading was made: bytes decoded from a run, or the letters of the whole text transformed. */
export type DecodedKind = "bytes" | "letters";

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
const B32_RE = /\b[A-Z2-7]{16,}={0,6}/g;
/** Form encoding: words joined by plus signs (`ignore+all+previous`). */
const PLUS_WORDS_RE = /[\p{L}\p{N}%'.,:-]+(?:\+[\p{L}\p{N}%'.,:-]+){3,}/gu;
const HEX_BYTES_RE = /(?:(?:\\x|0x|%)?[0-9a-f]{2}(?:[\s,:;-]|\\x|0x|%)?){8,}/gi;
const BINARY_RE = /(?:[01]{8}[\s,]?){4,}/g;
const MORSE_RE = /[.\-–—·•_]{1,7}(?:(?:\s+|\s*[/|]\s*)[.\-–—·•_]{1,7}){5,}/g;

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
  const plain = run.replace(/[·•]/g, ".").replace(/[–—_]/g, "-");
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

/** Common English words: a letter shift that makes many of them appear is the shift the text was written in. */
const COMMON_WORDS_RE = /\b(?:the|and|you|your|all|to|of|is|are|in|it|now|from|with|for|on|be|this|that|not|any|as|or|an?)\b/gi;
const commonWords = (s: string) => s.match(COMMON_WORDS_RE)?.length ?? 0;

/** The letter shift (Caesar; rot13 is one) under which the text reads most like English, if any does better than as written. */
function bestShift(text: string): string | null {
  let best: string | null = null;
  let score = Math.max(2, commonWords(text));
  for (let k = 1; k < 26; k++) {
    const t = shift(text, k);
    const n = commonWords(t);
    if (n > score) [best, score] = [t, n];
  }
  return best;
}

const rot13 = (s: string) => shift(s, 13);

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
    if (/[A-Z]/.test(run) && /[a-z]/.test(run)) add("bytes", decodeBase64(run));
  }
  for (const [run] of input.matchAll(HEX_BYTES_RE)) {
    const pairs = run.replace(/\\x|0x|%/gi, " ").match(/[0-9a-f]{2}/gi) ?? [];
    // A spaced run is read pair by pair; a solid one must split evenly into bytes.
    const solid = run.replace(/[^0-9a-f]/gi, "");
    if (pairs.length >= 8 && (solid.length % 2 === 0 || /[\s,:;\\%-]|0x/i.test(run)))
      add("bytes", bytesText(pairs.map((h) => parseInt(h, 16))));
  }
  for (const [run] of input.matchAll(B32_RE)) add("bytes", decodeBase32(run));
  for (const [run] of input.matchAll(BINARY_RE)) {
    add("bytes", bytesText((run.match(/[01]{8}/g) ?? []).map((b) => parseInt(b, 2))));
  }
  for (const [run] of input.matchAll(MORSE_RE)) add("bytes", decodeMorse(run));
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
  }
  return out;
}
