import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { parseApiKey, secretsEqual, sha256Hex } from "../core/api-key";
import { resolveKey } from "../platform/edge/key-store";
import { useD1Session } from "./d1-session";
import { flushMarksIfDue, markKeyUsed } from "../platform/edge/activity-marks";
import { ProblemError } from "../doors/problem";

export type { KeyPrincipal, Principal, Scope } from "../core/principal";
export { canManageKey, requireAgentAccess, requireScope, requireTenantAdmin, tenantPrincipal } from "../core/principal";

import { bearer } from "../core/principal";
import { unauthorized } from "../core/errors";
import { variables } from "../config";

/** Tenant API keys; deny by default, so every route mounted behind it needs a valid key. */
export const requireTenantKey = createMiddleware<AppEnv>(async (c, next) => {
  const token = bearer(c.req.header("authorization"));
  if (!parseApiKey(token)) throw unauthorized("The API key is malformed.");
  const hash = await sha256Hex(token);
  // Warm, this touches no database: the key comes from this isolate or KV (see platform/edge/key-store.ts).
  const key = await resolveKey(c.env, hash, c.executionCtx);
  if (!key || key.revoked) throw unauthorized("The API key is unknown or revoked.");
  c.set("principal", {
    kind: "key",
    tenantId: key.tenantId,
    keyId: key.keyId,
    scope: key.scope,
    agentIds: key.agentIds,
    libraryIds: key.libraryIds ?? null,
  });
  c.set("logger", c.get("logger").child({ tenantId: key.tenantId, keyId: key.keyId }));
  const now = Date.now();
  markKeyUsed(key.keyId, now);
  flushMarksIfDue(c.env, c.executionCtx, now);
  // After the key: a key minted a moment ago is read from the primary (platform/edge/key-store.ts), the rest from a replica.
  const sendBookmark = useD1Session(c);
  await next();
  sendBookmark();
});

/** The operator credential, used only to create tenants. */
export const requireOperator = createMiddleware<AppEnv>(async (c, next) => {
  const token = bearer(c.req.header("authorization"));
  const admin = variables(c.env).PRAXIS_ADMIN_KEY;
  if (!admin) throw new ProblemError(503, "service-unavailable", "PRAXIS_ADMIN_KEY is not set on this deployment.");
  if (!(await secretsEqual(token, admin))) throw unauthorized("The operator key is not valid.");
  c.set("principal", { kind: "operator" });
  await next();
});
