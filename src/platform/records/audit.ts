import { auditLog } from "../../db/schema";
import { db } from "../../db/client";
import type { Caller, Deps } from "../deps";

export type AuditEntry = { tenantId: string | null; action: string; target?: string; detail?: Record<string, unknown> };

/** Records who changed what on the control plane; failures are logged, never surfaced. */
export function recordAudit(deps: Pick<Deps, "env" | "logger" | "requestId">, caller: Caller, entry: AuditEntry) {
  const actor = caller.kind === "operator" ? "operator" : `key:${caller.keyId}`;
  return db(deps.env)
    .insert(auditLog)
    .values({ ...entry, actor, requestId: deps.requestId })
    .run()
    .catch((err: unknown) => deps.logger.error("audit write failed", { err: String(err) }));
}
