/** Hidden messages (src/core/poison.ts): base64 or hex runs that decode to readable text. */

// Pieces of one base64 string, split by quotes, plus signs or spaces so that no single run looks
// random, are joined again and decoded. Each piece must look encoded (a digit, a symbol or a
// capital after its first letter), which ordinary words do not.
const B64_PIECE_RE = /^[A-Za-z0-9+/_-]{4,}={0,2}$/;
const looksEncoded = (piece: string) => /[0-9+/=_-]/.test(piece) || /.[A-Z]/.test(piece);
const HEX_RUN_RE = /\b(?:[0-9a-f]{2}){12,}\b/gi;

/**
 * A base64 or hex run that decodes to readable text is a hidden message, whatever it says. A run
 * that decodes to random bytes (a hash, a key, an integrity digest) tells a model nothing; keys are
 * judged as secrets, not here.
 */
export function hasEncodedPayload(text: string): boolean {
  const pieces = text.split(/[\s"'`+,;|()[\]]+/);
  const usable = pieces.map((p) => B64_PIECE_RE.test(p) && looksEncoded(p));
  for (let i = 0; i < pieces.length; i++) {
    let joined = "";
    // A payload in more pieces is still caught: its first pieces alone decode to readable text.
    for (let j = i; j < Math.min(pieces.length, i + 8) && usable[j]; j++) {
      joined += pieces[j];
      if (joined.length >= 16 && isReadable(decodeBase64(joined))) return true;
      if (joined.endsWith("=")) break;
    }
  }
  for (const [run] of text.matchAll(HEX_RUN_RE)) {
    if (isReadable(utf8.decode(Uint8Array.from(run.match(/../g)!, (h) => parseInt(h, 16))))) return true;
  }
  return false;
}

const utf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: false });

function decodeBase64(s: string): string {
  const std = s.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
  if (std.length % 4 === 1 || !/^[A-Za-z0-9+/]*$/.test(std)) return "";
  const binary = atob(std + "=".repeat((4 - (std.length % 4)) % 4));
  return utf8.decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

/**
 * Natural-language text in any script: letters, marks, spaces and punctuation, with several words
 * (or, in a script written without spaces, several characters). Random bytes almost never decode
 * to valid UTF-8 this clean.
 */
function isReadable(s: string): boolean {
  const chars = [...s];
  if (chars.length < 8 || s.includes("\ufffd")) return false;
  const clean = s.match(/[\p{L}\p{M}\p{N}\p{P}\p{Zs}]/gu)?.length ?? 0;
  if (clean / chars.length < 0.95) return false;
  const unspaced = s.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Hangul}]/gu)?.length ?? 0;
  return ((s.match(/ /g)?.length ?? 0) >= 2 && /\p{L}{3}/u.test(s) && s.length >= 12) || unspaced >= 6;
}
