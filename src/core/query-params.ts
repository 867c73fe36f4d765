import { z } from "zod";

/** Plain decimal notation only: `Number()` would also take `0x10`, `1e1`, `0b1` and blank strings. */
const DECIMAL_RE = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

/**
 * A number carried in a query string or path: decimal text, then the given number schema. Anything
 * else stays a string, so the number schema rejects it as a 400 naming the field.
 */
export const queryNumber = <T extends z.ZodNumber>(schema: T) =>
  z.preprocess((v) => (typeof v === "string" && DECIMAL_RE.test(v) ? Number(v) : v), schema);

export const queryLimit = (max: number, fallback: number) => queryNumber(z.number().int().min(1).max(max)).default(fallback);
