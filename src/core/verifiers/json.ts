/** The json verifier: deep or subset equality of JSON values, whatever the key order. */
import { extractJson } from "../tolerant-json";
import type { Verdict } from "./schema";
import { fail, pass } from "./text";

type Mode = "deep" | "subset";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const key = (path: string, k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`);

/**
 * The first place where `got` departs from `want`, or null when it does not. In subset mode an
 * object may carry keys the ground truth does not mention, at any depth; arrays always match in
 * length and order, element by element.
 */
export function jsonDifference(got: unknown, want: unknown, mode: Mode, path = "$"): string | null {
  if (isObject(want)) {
    if (!isObject(got)) return `${path}: expected an object, got ${describe(got)}`;
    for (const k of Object.keys(want)) {
      if (!Object.hasOwn(got, k)) return `${key(path, k)}: missing`;
      const d = jsonDifference(got[k], want[k], mode, key(path, k));
      if (d) return d;
    }
    if (mode === "deep") {
      const extra = Object.keys(got).find((k) => !Object.hasOwn(want, k));
      if (extra !== undefined) return `${key(path, extra)}: not expected`;
    }
    return null;
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(got)) return `${path}: expected an array, got ${describe(got)}`;
    if (got.length !== want.length) return `${path}: expected ${want.length} items, got ${got.length}`;
    for (let i = 0; i < want.length; i++) {
      const d = jsonDifference(got[i], want[i], mode, `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  return got === want ? null : `${path}: expected ${describe(want)}, got ${describe(got)}`;
}

function describe(v: unknown): string {
  if (isObject(v)) return "an object";
  if (Array.isArray(v)) return "an array";
  const s = JSON.stringify(v) ?? "nothing";
  return s.length > 60 ? `${s.slice(0, 60)}…` : s;
}

/** The answer's JSON may sit in prose or a ```json fence; the ground truth must be JSON itself. */
export function verifyJson(answer: string, groundTruth: string, mode: Mode): Verdict {
  let want: unknown;
  try {
    want = JSON.parse(groundTruth);
  } catch (e) {
    return fail(
      `The ground truth is not valid JSON (${e instanceof Error ? e.message : String(e)}), so the json verifier cannot check it.`,
    );
  }
  let got: unknown;
  try {
    got = extractJson(answer);
  } catch {
    return fail("The answer contains no JSON value that parses.");
  }
  const d = jsonDifference(got, want, mode);
  const how = mode === "deep" ? "deep equality" : "subset equality";
  return d === null
    ? pass(`The answer's JSON matches the ground truth (${how}, key order ignored).`)
    : fail(`The answer's JSON differs from the ground truth (${how}): ${d}.`);
}
