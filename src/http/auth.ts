import { createMiddleware } from "hono/factory";
import { and, eq, isNull } from "drizzle-orm";
import type { AppEnv } from "../env";
import { agents, apiKeys } from "../db/schema";
import { db } from "../db/client";
import { parseApiKey, secretsEqual, sha256Hex } from "../core/api-key";
import { ProblemError } from "./problem";

import type { KeyPrincipal, Principal, Scope } from "../core/principal";

export type { KeyPrincipal, Principal, Scope } from "../core/principal";

const SCOPE_RANK: Record<Scope, number> = { read: 1, write: 2, admin: 3 };
const AGENT_PATH_RE = /^\/v1\/agents\/([^/]+)/;
/** last_used_at is refreshed at most this often per key, to keep D1 writes off the hot path. */
const LAST_USED_RESOLUTION_MS = 60_000;

const unauthorized = (detail: string) =>
  new ProblemError(401, "unauthorized", detail, { headers: { "www-authenticate": 'Bearer realm="praxis"' } });

export function bearer(header: string | undefined): string {
  if (!header) throw unauthorized("Send `Authorization: Bearer <api key>`.");
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw unauthorized("The Authorization header must have the form `Bearer <api key>`.");
  return m[1]!;
}

/**
 * The agent id a path names, decoded as the router decodes its params. A malformed escape names no
 * agent: the route's own param validation then answers it with a 400.
 */
function agentInPath(path: string): string | undefined {
  const segment = AGENT_PATH_RE.exec(path)?.[1];
  if (segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** Tenant API keys; deny by default, so every route mounted behind it needs a valid key. */
export const requireTenantKey = createMiddleware<AppEnv>(async (c, next) => {
  const token = bearer(c.req.header("authorization"));
  if (!parseApiKey(token)) throw unauthorized("The API key is malformed.");
  const hash = await sha256Hex(token);
  // Agent routes fetch their agent in the same D1 round trip as the key: it is on every hot path.
  const agentId = agentInPath(c.req.path);
  const found = await db(c.env)
    .select({ key: apiKeys, agent: agents })
    .from(apiKeys)
    .leftJoin(agents, and(eq(agents.tenantId, apiKeys.tenantId), eq(agents.agentId, agentId ?? "")))
    .where(and(eq(apiKeys.hash, hash), isNull(apiKeys.revokedAt)))
    .get();
  if (!found) throw unauthorized("The API key is unknown or revoked.");
  const row = found.key;
  if (agentId !== undefined) c.set("agentLookup", { agentId, row: found.agent });
  c.set("principal", { kind: "key", tenantId: row.tenantId, keyId: row.id, scope: row.scope, agentIds: row.agentIds ?? null });
  c.set("logger", c.get("logger").child({ tenantId: row.tenantId, keyId: row.id }));
  const now = Date.now();
  if (!row.lastUsedAt || now - row.lastUsedAt > LAST_USED_RESOLUTION_MS) {
    c.executionCtx.waitUntil(
      db(c.env).update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, row.id)).run().then(() => undefined),
    );
  }
  await next();
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
