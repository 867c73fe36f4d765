import type { Context } from "hono";
import type { AppEnv } from "../env";
import { auditLog } from "../db/schema";
import { db } from "../db/client";

/** Records who changed what on the control plane; failures are logged, never surfaced. */
export function audit(
  c: Context<AppEnv>,
  entry: { tenantId: string | null; action: string; target?: string; detail?: Record<string, unknown> },
) {
  const p = c.get("principal");
  const actor = p.kind === "operator" ? "operator" : `key:${p.keyId}`;
  return db(c.env)
    .insert(auditLog)
    .values({ ...entry, actor, requestId: c.get("requestId") })
    .run()
    .catch((err: unknown) => c.get("logger").error("audit write failed", { err: String(err) }));
}
