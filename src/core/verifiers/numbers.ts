/** Numbers as people and models write them, and comparison with tolerance. */

export interface ParsedNumber {
  value: number;
  /** Written with `%` or "percent": `value` is already divided by 100. */
  percent: boolean;
  /** The text it was read from. */
  raw: string;
}

export const DEFAULT_ABS_TOL = 1e-6;
export const DEFAULT_REL_TOL = 1e-6;

export interface Tolerance {
  absTol?: number;
  relTol?: number;
}

/** Like Python's math.isclose: close when within the absolute OR the relative tolerance. */
export function close(a: number, b: number, tol: Tolerance = {}): boolean {
  if (a === b) return true;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  const absTol = tol.absTol ?? DEFAULT_ABS_TOL;
  const relTol = tol.relTol ?? DEFAULT_REL_TOL;
  return Math.abs(a - b) <= Math.max(absTol, relTol * Math.max(Math.abs(a), Math.abs(b)));
}

const UNSIGNED = String.raw`(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?|\.\d+`;
// sign, mixed-number whole part, mantissa, e-exponent or "× 10^n", denominator, percent
const NUMBER_RE = new RegExp(
  String.raw`(?<![\w.])([-+]?)(?:(\d+)\s+(?=\d+\s*\/\s*\d))?(${UNSIGNED})` +
    String.raw`(?:[eE]([-+]?\d+)|\s*(?:[x×*·]|\\times|\\cdot)\s*10\s*\^\s*\{?\s*([-+]?\d+)\s*\}?)?` +
    String.raw`(?:\s*\/\s*(${UNSIGNED}))?` +
    String.raw`(\s*(?:%|percent\b|per\s+cent\b))?`,
  "g",
);

/** Spellings that differ only in typography: Unicode minus, thin-space thousands separators, LaTeX escapes. */
function plain(text: string): string {
  // Thin spaces first: NFKC turns them into plain spaces, which also separate numbers in a list.
  return text
    .replace(/(\d)[\u2009\u202F\u00A0'](?=\d{3}(?!\d))/g, "$1,")
    .normalize("NFKC")
    .replace(/[\u2212\u2012\u2013\u2014\uFE63\uFF0D]/g, "-")
    .replace(/(\d)(?:\\,|\{,\})(?=\d{3}(?!\d))/g, "$1,")
    .replace(/\\%/g, "%")
    .replace(/\\\$|\$/g, "");
}

/**
 * Every number in `text`, in order: thousands separators (`1,234.5`), signs, decimals without a
 * leading zero, scientific notation (`1.5e3`, `1.5 × 10^3`), fractions (`3/4`), mixed numbers
 * (`1 1/2`) and percentages (`50%` is read as 0.5). Units and currency symbols around a number are
 * ignored. A comma is a thousands separator only between groups of three digits; `1,5` is two
 * numbers, not the European 1.5.
 */
export function parseNumbers(text: string): ParsedNumber[] {
  const out: ParsedNumber[] = [];
  for (const m of plain(text).matchAll(NUMBER_RE)) {
    const [raw, sign, whole, mantissa, exp, pow10, denominator, percent] = m;
    let value = Number(mantissa!.replace(/,/g, ""));
    const exponent = exp ?? pow10;
    if (exponent !== undefined) value *= 10 ** Number(exponent);
    if (denominator !== undefined) value /= Number(denominator.replace(/,/g, ""));
    if (whole !== undefined) value += Number(whole);
    if (sign === "-") value = -value;
    if (percent) value /= 100;
    if (Number.isFinite(value)) out.push({ value, percent: Boolean(percent), raw: raw.trim() });
  }
  return out;
}

/**
 * Whether an answer's number equals the expected one. A percent sign on exactly one side is
 * ambiguous (datasets write "what percent" answers both as 50 and as 0.5), so that side matches
 * when either its fraction (50% = 0.5) or its face value (50% = 50) does.
 */
export function numbersMatch(answer: ParsedNumber, expected: ParsedNumber, tol: Tolerance): boolean {
  if (close(answer.value, expected.value, tol)) return true;
  if (answer.percent === expected.percent) return false;
  const face = (n: ParsedNumber) => (n.percent ? n.value * 100 : n.value);
  return close(face(answer), face(expected), tol);
}

/** How a number is shown in reasoning: short, without float noise. */
export function formatNumber(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Number(n.toPrecision(12)));
}
