import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { parseApiKey, secretsEqual, sha256Hex } from "../core/api-key";
import { resolveKey } from "../services/keys";
import { useD1Session } from "../services/d1-session";
import { flushMarksIfDue, markKeyUsed } from "../services/usage-marks";
import { ProblemError } from "./problem";

import type { KeyPrincipal, Principal, Scope } from "../core/principal";

export type { KeyPrincipal, Principal, Scope } from "../core/principal";

const SCOPE_RANK: Record<Scope, number> = { read: 1, write: 2, admin: 3 };

const unauthorized = (detail: string) =>
  new ProblemError(401, "unauthorized", detail, { headers: { "www-authenticate": 'Bearer realm="praxis"' } });

export function bearer(header: string | undefined): string {
  if (!header) throw unauthorized("Send `Authorization: Bearer <api key>`.");
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw unauthorized("The Authorization header must have the form `Bearer <api key>`.");
  return m[1]!;
}

/** Tenant API keys; deny by default, so every route mounted behind it needs a valid key. */
export const requireTenantKey = createMiddleware<AppEnv>(async (c, next) => {
  const token = bearer(c.req.header("authorization"));
  if (!parseApiKey(token)) throw unauthorized("The API key is malformed.");
  const hash = await sha256Hex(token);
  // Warm, this touches no database: the key comes from this isolate or KV (see services/keys).
  const key = await resolveKey(c.env, hash, c.executionCtx);
  if (!key || key.revoked) throw unauthorized("The API key is unknown or revoked.");
  c.set("principal", { kind: "key", tenantId: key.tenantId, keyId: key.keyId, scope: key.scope, agentIds: key.agentIds });
  c.set("logger", c.get("logger").child({ tenantId: key.tenantId, keyId: key.keyId }));
  const now = Date.now();
  markKeyUsed(key.keyId, now);
  flushMarksIfDue(c.env, c.executionCtx, now);
  // After the key: a key minted a moment ago is read from the primary (services/keys), the rest from a replica.
  const sendBookmark = useD1Session(c);
  await next();
  sendBookmark();
});

/** The operator credential, used only to create tenants. */
export const requireOperator = createMiddleware<AppEnv>(async (c, next) => {
  const token = bearer(c.req.header("authorization"));
  const admin = c.env.PRAXIS_ADMIN_KEY;
  if (!admin) throw new ProblemError(503, "service-unavailable", "PRAXIS_ADMIN_KEY is not set on this deployment.");
  if (!(await secretsEqual(token, admin))) throw unauthorized("The operator key is not valid.");
  c.set("principal", { kind: "operator" });
  await next();
});

export function tenantPrincipal(p: Principal): KeyPrincipal {
  if (p.kind !== "key") throw unauthorized("A tenant API key is required.");
  return p;
}

export function requireScope(p: Principal, needed: Scope): KeyPrincipal {
  const k = tenantPrincipal(p);
  if (SCOPE_RANK[k.scope] < SCOPE_RANK[needed]) {
    throw new ProblemError(403, "forbidden", `This key has scope '${k.scope}'; '${needed}' is required.`);
  }
  return k;
}

/** A key limited to some agents gets 403 for the others (they belong to its own tenant, so nothing leaks). */
export function requireAgentAccess(p: Principal, agentId: string, needed: Scope) {
  const k = requireScope(p, needed);
  if (k.agentIds && !k.agentIds.includes(agentId)) {
    throw new ProblemError(403, "forbidden", `This key is not allowed to use agent '${agentId}'.`);
  }
  return k;
}

/** Tenant-wide actions (the webhook secret, keys for every agent) need an admin key that is not restricted to some agents. */
export function requireTenantAdmin(p: Principal) {
  const k = requireScope(p, "admin");
  if (k.agentIds) {
    throw new ProblemError(403, "forbidden", "This admin key is restricted to some agents; this action needs an unrestricted admin key.");
  }
  return k;
}

/**
 * Whether `manager` may mint or revoke a key limited to `agentIds` (null: every agent). A restricted
 * admin manages only keys restricted to a subset of its own agents, so it can never widen its reach.
 */
export function canManageKey(manager: KeyPrincipal, agentIds: readonly string[] | null): boolean {
  if (!manager.agentIds) return true;
  const own = new Set(manager.agentIds);
  return agentIds !== null && agentIds.every((a) => own.has(a));
}
