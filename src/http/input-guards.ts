import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { CONTROL_OR_BIDI_RE } from "../core/text-rules";
import { invalid } from "../core/errors";

/**
 * Checks every request passes before any handler sees it, so that no input can reach code that
 * would fail on it with a 500: how deep a JSON body nests, and the headers that steer how a body
 * is read or replayed.
 */

/**
 * Deeper than this and a body is refused. Nothing Praxis stores needs more than a handful of
 * levels; opaque payloads (hook events, tool-call arguments) get the rest. Recursive code over a
 * 5,000-deep document (validation, redaction, serialisation) overflows the stack.
 */
export const MAX_JSON_DEPTH = 64;

/** Visible ASCII only: the key is stored and compared byte for byte, and echoed in logs. */
export const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,255}$/;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

interface Level {
  array: boolean;
  /** The member being read: an array index, or the last key seen in an object. */
  member: string | number;
  expectKey: boolean;
}

/** The index of the quote that closes the string opened at `open`, or -1 when it never closes. */
function closingQuote(text: string, open: number): number {
  let j = open + 1;
  for (;;) {
    j = text.indexOf('"', j);
    if (j < 0) return -1;
    let slashes = 0;
    while (text.charCodeAt(j - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return j;
    j++;
  }
}

function keyText(raw: string): string {
  if (!raw.includes("\\")) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

/**
 * Where a JSON (or NDJSON) text first nests deeper than `max` containers, as the dotted path of
 * the field that holds the too-deep value (`events.0.input`), or null when it never does. A single
 * pass without parsing or recursion, so a hostile document costs no more than reading it; text that
 * is not valid JSON is left to the parser to refuse.
 */
export function tooDeepAt(text: string, max = MAX_JSON_DEPTH): string | null {
  const stack: Level[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === QUOTE) {
      const end = closingQuote(text, i);
      if (end < 0) return null;
      const top = stack[stack.length - 1];
      if (top && !top.array && top.expectKey) {
        top.member = keyText(text.slice(i + 1, end));
        top.expectKey = false;
      }
      i = end;
    } else if (ch === OPEN_OBJECT || ch === OPEN_ARRAY) {
      if (stack.length >= max) return stack.map((l) => l.member).join(".");
      stack.push({ array: ch === OPEN_ARRAY, member: ch === OPEN_ARRAY ? 0 : "", expectKey: true });
    } else if (ch === CLOSE_OBJECT || ch === CLOSE_ARRAY) {
      stack.pop();
    } else if (ch === COMMA) {
      const top = stack[stack.length - 1];
      if (top?.array) top.member = (top.member as number) + 1;
      else if (top) top.expectKey = true;
    }
  }
  return null;
}

/** The dotted path of the first field holding U+0000 (its depth is already bounded); empty when the body does not parse. */
function nulPath(text: string): string {
  const find = (v: unknown, path: (string | number)[]): (string | number)[] | null => {
    if (typeof v === "string") return v.includes("\u0000") ? path : null;
    if (Array.isArray(v)) {
      for (const [i, x] of v.entries()) {
        const hit = find(x, [...path, i]);
        if (hit) return hit;
      }
    } else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        const hit = k.includes("\u0000") ? [...path, k] : find(x, [...path, k]);
        if (hit) return hit;
      }
    }
    return null;
  };
  const parsed = (t: string): unknown => {
    try {
      return JSON.parse(t);
    } catch {
      return undefined;
    }
  };
  const whole = parsed(text);
  if (whole !== undefined) return (find(whole, []) ?? []).join(".");
  // NDJSON: the line's index leads the path.
  for (const [n, line] of text.split("\n").entries()) {
    const hit = find(parsed(line), [n]);
    if (hit) return hit.join(".");
  }
  return "";
}

const JSON_OR_NDJSON_RE = /^application\/(?:([\w.+-]+\+)?json|x-ndjson)\b/i;
const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

// A JSON string escape for U+0000 (an odd run of backslashes before `u0000`), or the raw byte.
const NUL_RE = /(?<!\\)(?:\\\\)*\\u0000|\u0000/i;

/**
 * Refuses a JSON body nested deeper than MAX_JSON_DEPTH (400 naming the field), and one holding
 * U+0000 anywhere: no stored text may contain it (it truncates strings in C-based readers and hides
 * what follows from a reviewer). The body is read
 * once as text, which Hono caches for the validators, and handed on as a fresh body for handlers
 * that read the raw request (MCP).
 */
export const limitJsonDepth = createMiddleware<AppEnv>(async (c, next) => {
  const raw = c.req.raw;
  if (!raw.body || !WRITE_METHODS.has(c.req.method) || !JSON_OR_NDJSON_RE.test(c.req.header("content-type") ?? "")) return next();
  const text = await c.req.text();
  const at = tooDeepAt(text);
  if (at !== null) {
    throw invalid(`The body nests deeper than ${MAX_JSON_DEPTH} levels.`, [
      { path: at, message: `Nested deeper than ${MAX_JSON_DEPTH} levels`, code: "too_deep" },
    ]);
  }
  if (NUL_RE.test(text)) {
    throw invalid("The body holds a NUL character (U+0000), which no field may contain.", [
      { path: nulPath(text), message: "Must not contain U+0000", code: "nul_character" },
    ]);
  }
  c.req.raw = new Request(raw, { body: text });
  return next();
});

function decodedPath(url: string): string {
  const path = new URL(url).pathname;
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/**
 * Refuses what would otherwise be misread: ids in the path holding control or bidi characters
 * (every path parameter is an id or a name), a Content-Length that is not a plain decimal (which
 * `Number()` turns into NaN, passing every size check), and an Idempotency-Key that is empty,
 * longer than 255 characters or not visible ASCII.
 */
export const checkRequest = createMiddleware<AppEnv>(async (c, next) => {
  if (CONTROL_OR_BIDI_RE.test(decodedPath(c.req.url))) {
    throw invalid("The path holds control or bidirectional-override characters; ids and names never do.", [
      { path: "path", message: "Must not contain control characters or bidirectional-override characters", code: "invalid_format" },
    ]);
  }
  const length = c.req.header("content-length");
  if (length !== undefined && !/^\d{1,15}$/.test(length.trim())) {
    throw invalid("Content-Length must be a whole number of bytes.", [
      { path: "header.content-length", message: "Not a decimal byte count", code: "invalid_format" },
    ]);
  }
  const key = c.req.header("idempotency-key");
  if (key !== undefined && !IDEMPOTENCY_KEY_RE.test(key)) {
    throw invalid("An Idempotency-Key is 1-255 visible ASCII characters (no spaces or control characters).", [
      { path: "header.idempotency-key", message: "Must be 1-255 visible ASCII characters", code: "invalid_format" },
    ]);
  }
  return next();
});
