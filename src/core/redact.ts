/**
 * Masks credentials in text that is about to be stored or sent to an LLM (episode traces, error
 * output, extracted experiences). Patterns favour recall on well-known token formats and stay
 * conservative on free text, because containsSecret also feeds the memory-poisoning guard and a
 * false positive there quarantines a harmless lesson.
 */

export const REDACTED = "[REDACTED]";

type Rule = { re: RegExp; replace: string | ((match: string, ...groups: string[]) => string) };

// Keys whose assigned value is a secret. The keyword must end the key name, so `max_tokens=4096`
// or `token_count: 12` are left alone while `OPENAI_API_KEY=...` and `"client_secret": ...` are not.
const SECRET_KEY =
  "(?:[A-Za-z0-9]+[_.-])*(?:api[_-]?key|apikey|secret(?:[_-]?key)?|password|passwd|pwd|token|access[_-]?key|private[_-]?key)";

// Values that are placeholders or references, not secrets: `$DB_PASSWORD`, `<your key>`, `{{token}}`.
const PLACEHOLDER_RE = /^(?:[$<{%]|\[REDACTED\]$)/;

const RULES: Rule[] = [
  { re: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----/g, replace: REDACTED },
  // JWTs before Bearer so a bearer JWT is masked whole either way.
  { re: /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, replace: REDACTED },
  { re: /\bpxk_[A-Za-z0-9_-]{8,}/g, replace: REDACTED },
  { re: /\bsk-(?:proj-|ant-|live-|test-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}/g, replace: REDACTED },
  { re: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/g, replace: REDACTED },
  { re: /\bgh[pousr]_[A-Za-z0-9]{20,}/g, replace: REDACTED },
  { re: /\bgithub_pat_[A-Za-z0-9_]{20,}/g, replace: REDACTED },
  { re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, replace: REDACTED },
  { re: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, replace: REDACTED },
  { re: /\bAIza[0-9A-Za-z_-]{30,}/g, replace: REDACTED },
  // A real bearer token always carries a digit; requiring one spares prose like "Bearer authentication".
  { re: /\b(Bearer\s+)(?=[A-Za-z0-9._~+/-]*\d)[A-Za-z0-9._~+/-]{8,}=*/gi, replace: `$1${REDACTED}` },
  { re: /(\bauthorization["']?\s*[:=]\s*["']?(?:basic|token|digest)\s+)[A-Za-z0-9._~+/=-]{6,}/gi, replace: `$1${REDACTED}` },
  // Passwords embedded in URLs: scheme://user:password@host
  { re: /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)([^\s@/]+)(@)/gi, replace: `$1${REDACTED}$3` },
  {
    re: new RegExp(`(["']?)\\b(${SECRET_KEY})\\1(\\s*[:=]\\s*)(?:"([^"\\n]*)"|'([^'\\n]*)'|([^\\s"'&,;]+))`, "gi"),
    replace: redactAssignment,
  },
];

function redactAssignment(match: string, q: string, key: string, sep: string, dq?: string, sq?: string, bare?: string): string {
  const head = `${q}${key}${q}${sep}`;
  if (dq !== undefined) return dq === "" || PLACEHOLDER_RE.test(dq) ? match : `${head}"${REDACTED}"`;
  if (sq !== undefined) return sq === "" || PLACEHOLDER_RE.test(sq) ? match : `${head}'${REDACTED}'`;
  const value = bare ?? "";
  if (PLACEHOLDER_RE.test(value)) return match;
  // "key: value" is also how prose reads ("the secret: retry later"), so an unquoted value after a
  // colon must look machine-made: a digit or symbol, or long enough not to be a word.
  if (sep.trim() === ":" && /^[A-Za-z]{1,15}$/.test(value)) return match;
  return `${head}${REDACTED}`;
}

export function redactSecrets(text: string): string {
  let out = text;
  for (const { re, replace } of RULES) {
    out = typeof replace === "string" ? out.replace(re, replace) : out.replace(re, replace);
  }
  return out;
}

export function containsSecret(text: string): boolean {
  return redactSecrets(text) !== text;
}
