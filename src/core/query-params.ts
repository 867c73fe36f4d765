import { z } from "zod";

/** Plain decimal notation only: `Number()` would also take `0x10`, `1e1`, `0b1` and blank strings. */
const DECIMAL_RE = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

/**
 * A number carried in a query string or path: decimal text, then the given number schema. Anything
 * else stays a string, so the number schema rejects it as a 400 naming the field.
 */
export const queryNumber = <T extends z.ZodNumber>(schema: T) =>
  z.preprocess((v) => (typeof v === "string" && DECIMAL_RE.test(v) ? Number(v) : v), schema);

/**
 * A JSON value carried in one query parameter (e.g. `filter={"tags":["billing"]}`), then the given
 * schema; its issues keep their paths under the parameter's name. The parameter is documented as
 * a string, since a query string has no standard for nested objects.
 */
export const queryJson = <T extends z.ZodType>(schema: T, maxChars = 8000) =>
  z
    .string()
    .max(maxChars)
    .transform((text, ctx): z.output<T> => {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        ctx.addIssue({ code: "custom", message: "Must be JSON" });
        return z.NEVER;
      }
      const parsed = schema.safeParse(value);
      if (parsed.success) return parsed.data;
      for (const issue of parsed.error.issues)
        ctx.addIssue({ code: "custom", message: issue.message, path: issue.path as (string | number)[] });
      return z.NEVER;
    });

export const queryLimit = (max: number, fallback: number) => queryNumber(z.number().int().min(1).max(max)).default(fallback);
