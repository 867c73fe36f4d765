/** Tolerant JSON extraction for LLM output, which wraps JSON in prose, fences and trailing commas. */

export class JsonExtractError extends Error {
  override name = "JsonExtractError";
}

// Each start position costs a scan to its matching bracket; prose full of brackets must not turn
// extraction quadratic on a large answer.
const MAX_CANDIDATES = 64;

export function extractJson(text: string): unknown {
  const clean = text.replace(/^\uFEFF/, "").trim();
  if (clean === "") throw new JsonExtractError("Expected JSON but the model output was empty.");

  const direct = tryParse(clean);
  if (direct.ok) return direct.value;

  let lastError = direct.error;
  for (const body of fencedBlocks(clean)) {
    const fenced = tryParse(body) ;
    if (fenced.ok) return fenced.value;
    const inner = largestBalanced(body);
    if (inner.ok) return inner.value;
    lastError = fenced.error;
  }

  const found = largestBalanced(clean);
  if (found.ok) return found.value;
  if (found.attempted) lastError = found.error;

  const head = clean.length > 120 ? `${clean.slice(0, 120)}…` : clean;
  const what = found.attempted
    ? `found JSON-like text but it did not parse (${lastError})`
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
  if (open && !text.slice(open.index + open[0].length - open[2]!.length).includes(open[1]!)) json.push(open[2]!.trim());
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

type Balanced = { ok: true; value: unknown } | { ok: false; attempted: boolean; error: string };

/**
 * Picks the largest top-level bracketed span that parses, not the first: prose before the answer
 * often contains short bracketed asides ("see [1]") that happen to be valid JSON.
 */
function largestBalanced(text: string): Balanced {
  let best: { length: number; value: unknown } | null = null;
  let attempted = false;
  let error = "";
  let tries = 0;
  for (let start = 0; start < text.length && tries < MAX_CANDIDATES; start++) {
    const c = text[start];
    if (c !== "{" && c !== "[") continue;
    const end = matchingBracket(text, start);
    if (end < 0) continue;
    tries++;
    attempted = true;
    const parsed = tryParse(text.slice(start, end + 1));
    if (parsed.ok) {
      if (!best || end + 1 - start > best.length) best = { length: end + 1 - start, value: parsed.value };
      start = end; // nested spans of a parsed value are never larger than it
    } else {
      error = parsed.error;
    }
  }
  return best ? { ok: true, value: best.value } : { ok: false, attempted, error };
}

function matchingBracket(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "{") stack.push("}");
    else if (c === "[") stack.push("]");
    else if (c === "}" || c === "]") {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}
