import type { ParsedNumber } from "./numbers";

/**
 * Just enough LaTeX for final answers: normalise the notation, then evaluate arithmetic
 * (`\frac`, `\sqrt`, `^`, `\pi`, `\cdot`, implicit products) to a number when it is one.
 */

/** The argument in braces starting at `open` (which must be `{`), and the index after it. */
function braced(s: string, open: number): { body: string; end: number } | null {
  if (s[open] !== "{") return null;
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === "{") depth++;
    else if (s[i] === "}" && --depth === 0) return { body: s.slice(open + 1, i), end: i + 1 };
  }
  return null;
}

/** One argument of a command: `{…}` or, as in `\frac12`, a single character. */
function argument(s: string, at: number): { body: string; end: number } | null {
  let i = at;
  while (s[i] === " ") i++;
  if (s[i] === "{") return braced(s, i);
  return i < s.length ? { body: s[i]!, end: i + 1 } : null;
}

/** Rewrites `\frac{a}{b}` (and `\dfrac`, `\tfrac`, `\frac12`) to `((a)/(b))`, innermost arguments included. */
function rewriteFractions(s: string): string {
  const re = /\\[dt]?frac(?![a-zA-Z])/;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s))) {
    const num = argument(s, m.index + m[0].length);
    const den = num && argument(s, num.end);
    if (!num || !den) return s;
    s = `${s.slice(0, m.index)}((${num.body})/(${den.body}))${s.slice(den.end)}`;
  }
  return s;
}

/** Rewrites `\sqrt{x}` to `sqrt(x)` and `\sqrt[n]{x}` to `((x)^(1/(n)))`. */
function rewriteRoots(s: string): string {
  const re = /\\sqrt\s*(?:\[([^\]]*)\])?/;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s))) {
    const arg = argument(s, m.index + m[0].length);
    if (!arg) return s;
    const root = m[1] === undefined ? `sqrt(${arg.body})` : `((${arg.body})^(1/(${m[1]})))`;
    s = `${s.slice(0, m.index)}${root}${s.slice(arg.end)}`;
  }
  return s;
}

/**
 * A canonical spelling of a LaTeX answer: math delimiters, `\left`/`\right`, spacing commands,
 * `\text{…}` wrappers, degree marks and trailing units in text dropped; fractions and roots
 * rewritten to plain arithmetic; whitespace removed.
 */
export function normaliseLatex(input: string): string {
  let s = input.trim();
  s = s
    .replace(/^\$+|\$+$/g, "")
    .replace(/^\\\(|\\\)$/g, "")
    .replace(/^\\\[|\\\]$/g, "");
  s = s
    .replace(/\\(?:left|right|big|Big|bigg|Bigg)(?![a-zA-Z])\s*(\\?[()[\]{}|.])/g, (_, d: string) => (d === "." ? "" : d))
    .replace(/\\(?:displaystyle|textstyle|!|,|;|:|quad|qquad)(?![a-zA-Z])|~/g, " ")
    .replace(/\^\s*\{?\s*\\circ\s*\}?|°/g, "")
    // A word in \text{} right after a number is a unit ("5\text{ cm}"); elsewhere it is the answer.
    .replace(/([\d}])\s*\\(?:text|mathrm|mbox)\s*\{\s*[a-zA-Z][a-zA-Z .]*\}/g, "$1")
    .replace(/\\(?:text|textbf|textit|mathrm|mathbf|operatorname|mbox)\s*\{([^{}]*)\}/g, "$1")
    .replace(/\\%/g, "%")
    .replace(/\\\$/g, "")
    .replace(/\\\{/g, "{")
    .replace(/\\\}/g, "}");
  s = rewriteRoots(rewriteFractions(s));
  s = s
    .replace(/\\(?:cdot|times|ast)(?![a-zA-Z])/g, "*")
    .replace(/\\div(?![a-zA-Z])/g, "/")
    .replace(/\\pi(?![a-zA-Z])|π/g, "pi")
    .replace(/[−–]/g, "-")
    .replace(/\s+/g, "");
  // "x = 5" and "y=\frac12" answer with the value; the variable name is not part of it.
  const assignment = /^[a-zA-Z](?:_\{?\w+\}?)?=(?!=)(.+)$/.exec(s);
  return assignment ? assignment[1]! : s;
}

class ParseError extends Error {}

type Vars = Record<string, number>;

/**
 * A recursive-descent evaluator for the normalised form: + - * / ^, parentheses and braces,
 * implicit multiplication (`2pi`, `3sqrt(2)`, `2(x+1)`), `sqrt`, `pi`, `e` and single-letter
 * variables (looked up in `vars`). Throws ParseError for anything else.
 */
function evaluate(expr: string, vars: Vars): number {
  const tokens = expr.match(/\d+(?:\.\d+)?|\.\d+|sqrt|pi|[a-zA-Z]|\*\*|[-+*/^(){}[\]]/g) ?? [];
  if (tokens.join("") !== expr) throw new ParseError(`unsupported characters in '${expr}'`);
  let pos = 0;
  const peek = () => tokens[pos];
  const take = () => tokens[pos++];

  const sum = (): number => {
    let v = product();
    while (peek() === "+" || peek() === "-") v = take() === "+" ? v + product() : v - product();
    return v;
  };
  const startsFactor = (t: string | undefined) => t !== undefined && /^(?:\d|\.|sqrt|pi|[a-zA-Z(\[{])/.test(t);
  const product = (): number => {
    let v = unary();
    for (;;) {
      const t = peek();
      if (t === "*") take(), (v *= unary());
      else if (t === "/") take(), (v /= unary());
      else if (startsFactor(t)) v *= power();
      else return v;
    }
  };
  const unary = (): number => {
    if (peek() === "-") return (take(), -unary());
    if (peek() === "+") return (take(), unary());
    return power();
  };
  const power = (): number => {
    const base = atom();
    if (peek() === "^" || peek() === "**") {
      take();
      return base ** unary();
    }
    return base;
  };
  const closing: Record<string, string> = { "(": ")", "[": "]", "{": "}" };
  const atom = (): number => {
    const t = take();
    if (t === undefined) throw new ParseError("unexpected end");
    if (t in closing) {
      const v = sum();
      if (take() !== closing[t]) throw new ParseError("unbalanced brackets");
      return v;
    }
    if (/^(?:\d|\.)/.test(t)) return Number(t);
    if (t === "pi") return Math.PI;
    if (t === "sqrt") return Math.sqrt(atom());
    if (t === "e" && !("e" in vars)) return Math.E;
    if (/^[a-zA-Z]$/.test(t) && t in vars) return vars[t]!;
    throw new ParseError(`unexpected '${t}'`);
  };

  const v = sum();
  if (pos !== tokens.length) throw new ParseError(`unexpected '${peek()}'`);
  return v;
}

/**
 * The number a normalised expression without variables stands for (a trailing `%` divides by
 * 100 and is reported), or null when it is not plain arithmetic.
 */
export function latexNumber(normalised: string): ParsedNumber | null {
  const percent = normalised.endsWith("%");
  const bare = (percent ? normalised.slice(0, -1) : normalised)
    .replace(/(\d),(?=\d{3}(?!\d))/g, "$1")
    .replace(/(\d)[eE]([-+]?\d+)(?![\w.])/g, "$1*10^($2)");
  if (/[a-df-zA-Z]/.test(bare.replace(/sqrt|pi/g, ""))) return null;
  try {
    const v = evaluate(bare, {});
    if (!Number.isFinite(v)) return null;
    return { value: percent ? v / 100 : v, percent, raw: normalised };
  } catch {
    return null;
  }
}

// Fixed, irregular sample points: two polynomials that agree on all of them are almost surely equal.
// biome-ignore lint/suspicious/noApproximativeNumericConstant: 3.1416 is a sample point, not an approximation of π
const SAMPLES = [0.5377, 1.8339, -2.2588, 0.8622, 3.1416];

/**
 * Whether two normalised expressions in the same single-letter variables agree at several sample
 * points (`x+1` vs `1+x`, `2(x+1)` vs `2x+2`). Null when either is not an expression the
 * evaluator understands, or they use different variables.
 */
export function sameFunction(a: string, b: string): boolean | null {
  const names = (s: string) => [...new Set(s.replace(/sqrt|pi/g, "").match(/[a-zA-Z]/g) ?? [])].sort().join("");
  const va = names(a);
  if (va === "" || va !== names(b)) return null;
  let compared = 0;
  for (const [i, x] of SAMPLES.entries()) {
    const vars: Vars = {};
    [...va].forEach((name, k) => (vars[name] = SAMPLES[(i + k) % SAMPLES.length]! + x * k));
    let ya: number;
    let yb: number;
    try {
      ya = evaluate(a, vars);
      yb = evaluate(b, vars);
    } catch {
      return null;
    }
    // A point outside either side's domain (a root of a negative, a pole) proves nothing.
    if (!Number.isFinite(ya) || !Number.isFinite(yb)) continue;
    if (Math.abs(ya - yb) > 1e-9 * Math.max(1, Math.abs(ya), Math.abs(yb))) return false;
    compared++;
  }
  return compared > 0 ? true : null;
}
