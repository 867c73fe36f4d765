/**
 * Errors thrown across the RPC boundary lose their class, so the kind travels in the message as
 * a `praxis:<kind>:` prefix plus a JSON payload that the service module turns back into a problem.
 */
export type MemoryErrorKind = "invalid" | "not-found" | "conflict";

const PREFIX = "praxis-memory-error:";

export class MemoryError extends Error {
  constructor(kind: MemoryErrorKind, detail: string, errors: { path: string; message: string }[] = []) {
    super(PREFIX + JSON.stringify({ kind, detail, errors }));
    this.name = "MemoryError";
  }

  static invalid(detail: string, issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> = []) {
    return new MemoryError(
      "invalid",
      detail,
      issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message })),
    );
  }
  static notFound(detail: string) {
    return new MemoryError("not-found", detail);
  }
  static conflict(detail: string) {
    return new MemoryError("conflict", detail);
  }
}

export function decodeMemoryError(
  err: unknown,
): { kind: MemoryErrorKind; detail: string; errors: { path: string; message: string }[] } | null {
  const msg = err instanceof Error ? err.message : typeof err === "string" ? err : "";
  const at = msg.indexOf(PREFIX);
  if (at < 0) return null;
  try {
    return JSON.parse(msg.slice(at + PREFIX.length));
  } catch {
    return null;
  }
}
