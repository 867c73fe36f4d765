/** Verifiers that compare numbers: numeric (plain text) and math (LaTeX). */
import { extractFinalAnswer } from "./extract";
import { latexNumber, normaliseLatex, sameFunction } from "./latex";
import { formatNumber, numbersMatch, parseNumbers, type ParsedNumber, type Tolerance } from "./numbers";
import type { Verdict } from "./schema";
import { fail, pass, quote } from "./text";

const show = (n: ParsedNumber) => (n.percent ? `${formatNumber(n.value * 100)}%` : formatNumber(n.value));

/** The number an answer settles on: the last one in its final answer ("42 apples (6 boxes)" is read as 6). */
function lastNumber(text: string): ParsedNumber | null {
  return parseNumbers(extractFinalAnswer(text)).at(-1) ?? null;
}

export function verifyNumeric(answer: string, groundTruth: string, tol: Tolerance): Verdict {
  const want = lastNumber(groundTruth);
  if (!want) return fail(`The ground truth ${quote(groundTruth)} contains no number, so a numeric verifier cannot check it.`);
  const got = lastNumber(answer);
  if (!got) return fail(`The final answer ${quote(extractFinalAnswer(answer))} contains no number; expected ${show(want)}.`);
  if (numbersMatch(got, want, tol)) return pass(`The answer ${show(got)} equals the expected ${show(want)}${within(tol)}.`);
  return fail(`The answer ${show(got)} differs from the expected ${show(want)}${within(tol)}.`);
}

const within = (tol: Tolerance) =>
  tol.absTol !== undefined || tol.relTol !== undefined
    ? ` within the tolerance (absolute ${tol.absTol ?? "default"}, relative ${tol.relTol ?? "default"})`
    : "";

type Outcome = { equal: boolean; how: string };

/** Splits `(a,b)` or `[a,b]` at its top-level commas; null for anything that is not such a tuple. */
function tupleParts(s: string): { open: string; parts: string[] } | null {
  const open = s[0];
  const close = open === "(" ? ")" : open === "[" ? "]" : null;
  if (!close || s.at(-1) !== close) return null;
  const parts: string[] = [];
  let depth = 0;
  let start = 1;
  for (let i = 1; i < s.length - 1; i++) {
    const c = s[i]!;
    if ("([{".includes(c)) depth++;
    else if (")]}".includes(c) && --depth < 0) return null;
    else if (c === "," && depth === 0) parts.push(s.slice(start, i)), (start = i + 1);
  }
  if (depth !== 0 || parts.length === 0) return null;
  parts.push(s.slice(start, -1));
  return { open: open!, parts };
}

function compareMath(a: string, b: string, tol: Tolerance): Outcome {
  const ta = tupleParts(a);
  const tb = tupleParts(b);
  if (ta && tb) {
    if (ta.open !== tb.open || ta.parts.length !== tb.parts.length) return { equal: false, how: "as tuples of different shape" };
    const each = ta.parts.map((p, i) => compareMath(p, tb.parts[i]!, tol));
    return { equal: each.every((o) => o.equal), how: "element by element" };
  }
  const na = latexNumber(a);
  const nb = latexNumber(b);
  if (na && nb) return { equal: numbersMatch(na, nb, tol), how: `numerically (${show(na)} vs ${show(nb)})` };
  const same = sameFunction(a, b);
  if (same !== null) return { equal: same, how: "as expressions, evaluated at sample points" };
  return { equal: a === b, how: "as normalised LaTeX" };
}

/**
 * The final answer (last `\boxed{}` or "Final answer:" line) compared with the ground truth's:
 * numerically when both evaluate to numbers, element by element for tuples, by evaluation at
 * sample points when both are expressions in the same single-letter variables (`x+1` = `1+x`),
 * else as normalised text. Equivalence beyond that (factored forms with functions, sets in any
 * order, intervals against inequalities) is out of scope.
 */
export function verifyMath(answer: string, groundTruth: string, tol: Tolerance): Verdict {
  const gotRaw = extractFinalAnswer(answer);
  const wantRaw = extractFinalAnswer(groundTruth);
  const got = normaliseLatex(gotRaw);
  const want = normaliseLatex(wantRaw);
  if (got === "") return fail(`The answer has no final answer; expected ${quote(wantRaw)}.`);
  const { equal, how } = compareMath(got, want, tol);
  if (equal) return pass(`The final answer ${quote(gotRaw)} equals the expected ${quote(wantRaw)}, compared ${how}.`);
  return fail(`The final answer ${quote(gotRaw)} differs from the expected ${quote(wantRaw)}, compared ${how}.`);
}
