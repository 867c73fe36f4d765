import { fromBase64url, toBase64url } from "./encoding";

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
