import { lt } from "drizzle-orm";
import { auditLog } from "../../db/schema";
import { db } from "../../db/client";
import type { Env } from "../../env";
import type { Caller, Deps } from "../deps";

export type AuditEntry = { tenantId: string | null; action: string; target?: string; detail?: Record<string, unknown> };

/** Records who changed what on the control plane; failures are logged, never surfaced. */
export function recordAudit(deps: Pick<Deps, "env" | "logger" | "requestId">, caller: Caller, entry: AuditEntry) {
  const actor = caller.kind === "key" ? `key:${caller.keyId}` : caller.kind === "system" ? `system:${caller.job}` : "operator";
  return db(deps.env)
    .insert(auditLog)
    .values({ ...entry, actor, requestId: deps.requestId })
    .run()
    .catch((err: unknown) => deps.logger.error("audit write failed", { err: String(err) }));
}

const AUDIT_RETENTION_MS = 180 * 86_400_000;

/** Deletes the entries past retention; returns how many. */
export async function pruneAudit(env: Env, at: number): Promise<number> {
  const res = await db(env)
    .delete(auditLog)
    .where(lt(auditLog.at, at - AUDIT_RETENTION_MS))
    .run();
  return res.meta.changes ?? 0;
}
