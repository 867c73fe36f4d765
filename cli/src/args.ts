import { readFileSync } from "node:fs";
import { UsageError } from "./errors.js";

export function integer(text: string, name: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`${name} must be a whole number, not '${text}'.`);
  return Number(text);
}

export function optionalInteger(text: string | undefined, name: string): number | undefined {
  return text === undefined ? undefined : integer(text, name);
}

export function number(text: string, name: string): number {
  const n = Number(text);
  if (!/^-?\d+(\.\d+)?$/.test(text) || !Number.isFinite(n)) throw new UsageError(`${name} must be a number, not '${text}'.`);
  return n;
}

export function optionalNumber(text: string | undefined, name: string): number | undefined {
  return text === undefined ? undefined : number(text, name);
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
