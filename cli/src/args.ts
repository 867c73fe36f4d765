import { readFileSync } from "node:fs";
import { UsageError } from "./errors.js";

/** The values a numeric option takes; both ends included. */
export interface Range {
  min?: number;
  max?: number;
}

export const POSITIVE: Range = { min: 1 };
/** What the API takes as a seed. */
export const SEED: Range = { min: 0, max: 2 ** 31 - 1 };

/** The allowed values in words, for the message that refuses others. */
function allowed(whole: boolean, { min, max }: Range): string {
  const kind = whole ? "whole number" : "number";
  if (min !== undefined && max !== undefined) return `a ${kind} from ${min} to ${max}`;
  if (whole && min === 1) return "a positive whole number";
  if (min === 0) return `a ${kind}, 0 or more`;
  if (min !== undefined) return `a ${kind} of at least ${min}`;
  if (max !== undefined) return `a ${kind} of at most ${max}`;
  return `a ${kind}`;
}

function checked(text: string, name: string, whole: boolean, range: Range): number {
  const n = Number(text);
  const shape = whole ? /^-?\d+$/ : /^-?\d+(\.\d+)?$/;
  const inRange = (range.min === undefined || n >= range.min) && (range.max === undefined || n <= range.max);
  if (!shape.test(text) || !Number.isSafeInteger(whole ? n : Math.trunc(n)) || !inRange)
    throw new UsageError(`${name} must be ${allowed(whole, range)}, not '${text}'.`);
  return n;
}

export function integer(text: string, name: string, range: Range): number {
  return checked(text, name, true, range);
}

export function optionalInteger(text: string | undefined, name: string, range: Range): number | undefined {
  return text === undefined ? undefined : integer(text, name, range);
}

export function number(text: string, name: string, range: Range = {}): number {
  return checked(text, name, false, range);
}

export function optionalNumber(text: string | undefined, name: string, range: Range = {}): number | undefined {
  return text === undefined ? undefined : number(text, name, range);
}

/** A file's text; `-` reads stdin. */
export function readInput(file: string): string {
  try {
    return readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (err) {
    throw new UsageError(`Cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Every page of a cursor-paginated list. */
export async function allPages<T, C = string>(
  page: (cursor: C | undefined) => Promise<{ items: T[]; nextCursor: C | null }>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: C | undefined;
  do {
    const r = await page(cursor);
    items.push(...r.items);
    cursor = r.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return items;
}
