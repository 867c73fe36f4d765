import { fromBase64url, toBase64url } from "./encoding";
import { invalid } from "./errors";

/** Opaque pagination cursors: base64url JSON, so clients cannot depend on their contents. */
export function encodeCursor(value: Record<string, string | number>): string {
  return toBase64url(new TextEncoder().encode(JSON.stringify(value)));
}

export function decodeCursor(cursor: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(fromBase64url(cursor)));
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The fields of a list route's cursor, each of the type given; a cursor not from this API is a 400. */
export function cursorField<F extends Record<string, "string" | "number">>(
  cursor: string | undefined,
  fields: F,
): { [K in keyof F]: F[K] extends "string" ? string : number } | null {
  if (!cursor) return null;
  const decoded = decodeCursor(cursor);
  if (!decoded || Object.entries(fields).some(([k, type]) => typeof decoded[k] !== type)) {
    throw invalid("The cursor is not valid.", [{ path: "query.cursor", message: "Not a cursor from this API" }]);
  }
  return decoded as { [K in keyof F]: F[K] extends "string" ? string : number };
}

/**
 * One page of a list read with `limit + 1` rows: the extra row only says that another page
 * follows, and the next page starts after the page's last item, whose cursor `cursorOf` gives.
 */
export function pageOf<T>(
  rows: readonly T[],
  limit: number,
  cursorOf: (last: T) => Record<string, string | number>,
): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > limit && last !== undefined ? encodeCursor(cursorOf(last)) : null };
}
