/** Tolerant JSON extraction for LLM output, which wraps JSON in prose, fences and trailing commas. */

export class JsonExtractError extends Error {
  override name = "JsonExtractError";
}

// Each failed candidate costs a JSON.parse over its span; nested junk must not make that quadratic.
const MAX_PARSES = 256;

export function extractJson(text: string): unknown {
  const clean = text.replace(/^\uFEFF/, "").trim();
  if (clean === "") throw new JsonExtractError("Expected JSON but the model output was empty.");

  const direct = tryParse(clean);
  if (direct.ok) return direct.value;

  for (const body of fencedBlocks(clean)) {
    const fenced = tryParse(body);
    if (fenced.ok) return fenced.value;
    const inner = largestBalanced(body);
    if (inner.ok) return inner.value;
  }

  const found = largestBalanced(clean);
  if (found.ok) return found.value;

  const head = clean.length > 120 ? `${clean.slice(0, 120)}…` : clean;
  const what =
    found.status === "invalid"
      ? `found JSON-like text but it did not parse (${found.error})`
      : found.status === "unclosed"
        ? "found an opening bracket that is never closed (was the output cut off?)"
        : "found no JSON object or array";
  throw new JsonExtractError(`Could not extract JSON from model output: ${what}. Output began: ${JSON.stringify(head)}`);
}

type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

function tryParse(text: string): Parsed {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    const relaxed = stripTrailingCommas(text);
    if (relaxed !== text) {
      try {
        return { ok: true, value: JSON.parse(relaxed) };
      } catch {
        // fall through and report the original error, which points at the real problem
      }
    }
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

/** Fenced blocks labelled json come first; any other fence is a fallback. */
function fencedBlocks(text: string): string[] {
  const json: string[] = [];
  const other: string[] = [];
  for (const m of text.matchAll(/(`{3,}|~{3,})[ \t]*([\w+-]*)[^\n]*\n([\s\S]*?)\n?[ \t]*\1/g)) {
    (/^json[c5]?$/i.test(m[2] ?? "") ? json : other).push(m[3]!.trim());
  }
  // An answer cut off by max_tokens leaves the last fence unclosed.
  const open = /(?:^|\n)[ \t]*(`{3,}|~{3,})[ \t]*json[c5]?[ \t]*\n([\s\S]*)$/i.exec(text);
  if (open && !open[2]!.includes(open[1]!)) json.push(open[2]!.trim());
  return [...json, ...other];
}

/** Removes commas directly before `}` or `]`, outside string literals. */
export function stripTrailingCommas(text: string): string {
  let out = "";
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === "\\") out += text[++i] ?? "";
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    if (c === ",") {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j]!)) j++;
      if (text[j] === "}" || text[j] === "]") continue;
    }
    out += c;
  }
  return out;
}

type Balanced = { ok: true; value: unknown } | { ok: false; status: "none" | "unclosed" | "invalid"; error: string };

/**
 * Picks the largest top-level bracketed span that parses, not the first: prose before the answer
 * often contains short bracketed asides ("see [1]") that happen to be valid JSON.
 */
function largestBalanced(text: string): Balanced {
  const spans = bracketSpans(text);
  let best: { length: number; value: unknown } | null = null;
  let status: "none" | "unclosed" | "invalid" = spans.sawOpen ? "unclosed" : "none";
  let error = "";
  let tries = 0;
  let coveredUntil = -1;
  for (const [start, end] of spans.matched) {
    // Spans nested in one that parsed are never larger than it.
    if (start <= coveredUntil) continue;
    if (++tries > MAX_PARSES) break;
    status = "invalid";
    const parsed = tryParse(text.slice(start, end + 1));
    if (parsed.ok) {
      if (!best || end + 1 - start > best.length) best = { length: end + 1 - start, value: parsed.value };
      coveredUntil = end;
    } else {
      error = parsed.error;
    }
  }
  return best ? { ok: true, value: best.value } : { ok: false, status, error };
}

/**
 * One linear pass pairs every bracket with its partner, in order of the opening bracket. Quotes
 * only count inside a bracketed span: in the prose between spans they are apostrophes and
 * quotations, not JSON strings. A mismatched closer invalidates every span still open.
 */
function bracketSpans(text: string): { matched: Array<[number, number]>; sawOpen: boolean } {
  const matched: Array<[number, number]> = [];
  const stack: Array<{ pos: number; close: string }> = [];
  let inString = false;
  let sawOpen = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"' && stack.length > 0) inString = true;
    else if (c === "{" || c === "[") {
      sawOpen = true;
      stack.push({ pos: i, close: c === "{" ? "}" : "]" });
    } else if (c === "}" || c === "]") {
      const top = stack.pop();
      if (!top) continue;
      if (top.close === c) matched.push([top.pos, i]);
      else stack.length = 0;
    }
  }
  return { matched: matched.sort((a, b) => a[0] - b[0]), sawOpen };
}
