import { forbidden, unauthorized } from "./errors";

/** Who is calling: the operator (PRAXIS_ADMIN_KEY) or a tenant's API key with its scope and agents. */
export type Scope = "admin" | "write" | "read";

/** `libraryIds`: the shared libraries the key may use (absent or null: every library of its tenant). */
export type KeyPrincipal = {
  kind: "key";
  tenantId: string;
  keyId: string;
  scope: Scope;
  agentIds: string[] | null;
  libraryIds?: string[] | null;
};
/** The service acting on its own (a queue job, the cron): `job` names the work, for the logs and the audit. */
export type SystemPrincipal = { kind: "system"; job: string };
export type Principal = { kind: "operator" } | KeyPrincipal | SystemPrincipal;

export const systemPrincipal = (job: string): SystemPrincipal => ({ kind: "system", job });

/** Work no client may ask for (an agent's sweep, the cron's schedules): only the service's own jobs do it. */
export function requireSystem(p: Principal): SystemPrincipal {
  if (p.kind !== "system") throw forbidden("Only the service's own jobs do this.");
  return p;
}

const SCOPE_RANK: Record<Scope, number> = { read: 1, write: 2, admin: 3 };

export function tenantPrincipal(p: Principal): KeyPrincipal {
  if (p.kind !== "key") throw unauthorized("A tenant API key is required.");
  return p;
}

export function requireScope(p: Principal, needed: Scope): KeyPrincipal {
  const k = tenantPrincipal(p);
  if (SCOPE_RANK[k.scope] < SCOPE_RANK[needed]) {
    throw forbidden(`This key has scope '${k.scope}'; '${needed}' is required.`);
  }
  return k;
}

/** A key limited to some agents gets 403 for the others (they belong to its own tenant, so nothing leaks). */
export function requireAgentAccess(p: Principal, agentId: string, needed: Scope) {
  const k = requireScope(p, needed);
  if (k.agentIds && !k.agentIds.includes(agentId)) {
    throw forbidden(`This key is not allowed to use agent '${agentId}'.`);
  }
  return k;
}

/** Tenant-wide actions (the webhook secret, keys for every agent) need an admin key that is not restricted to some agents or libraries. */
export function requireTenantAdmin(p: Principal) {
  const k = requireScope(p, "admin");
  if (k.agentIds) {
    throw forbidden("This admin key is restricted to some agents; this action needs an unrestricted admin key.");
  }
  if (k.libraryIds) {
    throw forbidden("This admin key is restricted to some libraries; this action needs an unrestricted admin key.");
  }
  return k;
}

/**
 * Whether `manager` may mint or revoke a key limited to `agentIds` and `libraryIds` (null: every
 * agent, every library). A restricted admin manages only keys restricted to a subset of its own
 * agents and libraries, so it can never widen its reach.
 */
export function canManageKey(manager: KeyPrincipal, agentIds: readonly string[] | null, libraryIds: readonly string[] | null): boolean {
  return withinOwn(manager.agentIds, agentIds) && withinOwn(manager.libraryIds ?? null, libraryIds);
}

const withinOwn = (own: readonly string[] | null, asked: readonly string[] | null) =>
  !own || (asked !== null && asked.every((a) => own.includes(a)));

/** The key in an `Authorization: Bearer <key>` header; both doors (HTTP and MCP) read it the same way. */
export function bearer(header: string | undefined): string {
  if (!header) throw unauthorized("Send `Authorization: Bearer <api key>`.");
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw unauthorized("The Authorization header must have the form `Bearer <api key>`.");
  return m[1]!;
}
