import { mintApiKey, sha256Hex } from "../core/api-key";
import { conflict, forbidden, notFound, outcome, unavailable, unprocessable } from "../core/errors";
import { canManageKey, requireScope, requireSystem, type KeyPrincipal, type Scope } from "../core/principal";
import { cursorField, pageOf } from "../core/cursor";
import type { Caller, Deps } from "../platform/deps";
import { recordAudit } from "../platform/records/audit";
import {
  activeTenantAdminKeys,
  createKey,
  keyById,
  listKeys,
  revokeKey,
  rewriteRecentTombstones,
  rotateKeys,
  type KeyRow,
} from "../platform/edge/key-store";
import { tenantExists } from "./tenants";
import { unknownLibraries } from "./libraries";

/**
 * Managing a tenant's API keys: its admins create, list, revoke and rotate them; the operator
 * rotates a tenant's admin keys. How a key is resolved at the edge, and its revocation reaches
 * every location, is ./keys.ts.
 */

const outsideReach = (admin: KeyPrincipal) => {
  const reach = [admin.agentIds && `agents ${admin.agentIds.join(", ")}`, admin.libraryIds && `libraries ${admin.libraryIds.join(", ")}`]
    .filter(Boolean)
    .join(" and ");
  return forbidden(`This admin key is restricted to ${reach}; it manages only keys restricted to some of them.`);
};

/** A key as the API shows it: never its secret nor its hash. */
const present = (k: KeyRow) => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  scope: k.scope,
  agentIds: k.agentIds ?? null,
  libraryIds: k.libraryIds ?? null,
  createdAt: k.createdAt,
  lastUsedAt: k.lastUsedAt ?? null,
  revokedAt: k.revokedAt ?? null,
});

/**
 * A new key of the admin's tenant; a restricted admin creates only keys restricted to a subset of its
 * agents and libraries. Every library named must be one of the tenant's.
 */
export const createApiKey = (
  deps: Deps,
  caller: Caller,
  body: { name: string; scope: Scope; agentIds?: string[]; libraryIds?: string[] },
) =>
  outcome(async () => {
    const admin = requireScope(caller, "admin");
    const agentIds = body.agentIds ? [...new Set(body.agentIds)] : null;
    const libraryIds = body.libraryIds ? [...new Set(body.libraryIds)] : null;
    if (!canManageKey(admin, agentIds, libraryIds)) throw outsideReach(admin);
    const unknown = libraryIds ? await unknownLibraries(deps.env, admin.tenantId, libraryIds) : [];
    if (unknown.length) {
      const fields = unknown.map((id) => ({ path: `libraryIds.${body.libraryIds!.indexOf(id)}`, message: "No such library" }));
      throw unprocessable(`The tenant has no library ${unknown.join(", ")}.`, fields);
    }
    const minted = mintApiKey((n) => crypto.getRandomValues(new Uint8Array(n)));
    const row = await createKey(deps.env, deps, {
      id: minted.id,
      tenantId: admin.tenantId,
      name: body.name,
      prefix: minted.prefix,
      hash: await sha256Hex(minted.key),
      scope: body.scope,
      agentIds,
      libraryIds,
    });
    await recordAudit(deps, caller, { tenantId: admin.tenantId, action: "key.create", target: row.id, detail: { scope: row.scope } });
    return { ...present(row), apiKey: minted.key };
  });

/** The tenant's keys within the admin's reach, by id. */
export const listApiKeys = (deps: Deps, caller: Caller, { limit, cursor }: { limit: number; cursor?: string }) =>
  outcome(async () => {
    const admin = requireScope(caller, "admin");
    const after = cursorField(cursor, { k: "string" })?.k;
    const page = pageOf(await listKeys(deps.env, admin, limit, after), limit, (last) => ({ k: last.id }));
    return { items: page.items.map(present), nextCursor: page.nextCursor };
  });

/** The key making the request, whatever its scope. */
export const currentApiKey = (deps: Deps, caller: Caller) =>
  outcome(async () => {
    const self = requireScope(caller, "read");
    const row = await keyById(deps.env, self.tenantId, self.keyId);
    if (!row) throw notFound("This key no longer exists.");
    return { ...present(row), tenantId: row.tenantId };
  });

/**
 * Revokes a key of the tenant. Revoked in D1 either way; until the edge cache holds the revocation
 * too, the answer is unavailable (other locations may still accept the key), and repeating it
 * retries the cache's write.
 */
export const revokeApiKey = (deps: Deps, caller: Caller, { id }: { id: string }) =>
  outcome(async () => {
    const admin = requireScope(caller, "admin");
    const key = await keyById(deps.env, admin.tenantId, id);
    if (!key) throw notFound(`API key '${id}' does not exist.`);
    if (!canManageKey(admin, key.agentIds ?? null, key.libraryIds ?? null)) throw outsideReach(admin);
    const result = await revokeKey(deps.env, deps, admin.tenantId, id);
    if (!result.ok && result.reason === "not-found") throw notFound(`API key '${id}' does not exist.`);
    // Only an unrestricted admin key can do tenant-wide administration, so the last one must stay.
    if (!result.ok) throw conflict("This is the tenant's last active unrestricted admin key; create another one first.");
    if (!key.revokedAt) await recordAudit(deps, caller, { tenantId: admin.tenantId, action: "key.revoke", target: id });
    if (result.edgeCache === "pending") {
      throw unavailable(
        "The key is revoked, but the change has not reached the edge cache yet: other locations may accept the key until it does. The write is retried every few minutes until it lands; repeating the request retries it now.",
        2,
        { revoked: true, edgeCache: "pending" },
      );
    }
    return { ...present(result.row), edgeCache: result.edgeCache };
  });

/** Replaces a key of the tenant by a new one with the same name, scope and agents. */
export const rotateApiKey = (deps: Deps, caller: Caller, { id }: { id: string }) =>
  outcome(async () => {
    const admin = requireScope(caller, "admin");
    const key = await keyById(deps.env, admin.tenantId, id);
    if (!key || key.revokedAt != null) throw notFound(`API key '${id}' does not exist or is revoked.`);
    if (!canManageKey(admin, key.agentIds ?? null, key.libraryIds ?? null)) throw outsideReach(admin);
    const rotation = await rotateKeys(deps.env, deps, admin.tenantId, key, [id]);
    const revoked = rotation.revoked[0];
    // Revoked by a concurrent request between the read above and the rotation: the new key stands alone.
    if (!revoked)
      throw conflict(
        `API key '${id}' was revoked while it was being rotated; the new key '${rotation.created.id}' is active, revoke it if it is not wanted.`,
      );
    await recordAudit(deps, caller, {
      tenantId: admin.tenantId,
      action: "key.rotate",
      target: rotation.created.id,
      detail: { revoked: id },
    });
    return { ...present(rotation.created), apiKey: rotation.apiKey, revoked };
  });

/**
 * The operator's rotation of a tenant's admin key: one named key, or (without `keyId`) every active
 * unrestricted admin key replaced by one new key, the way back in for a tenant whose key was lost.
 */
export const rotateTenantAdminKey = (deps: Deps, caller: Caller, { tenantId, keyId }: { tenantId: string; keyId?: string }) =>
  outcome(async () => {
    if (!(await tenantExists(deps.env, tenantId))) throw notFound(`Tenant '${tenantId}' does not exist.`);
    let old = await activeTenantAdminKeys(deps.env, tenantId);
    let like: { name: string; scope: "admin"; agentIds: string[] | null; libraryIds: string[] | null } = {
      name: "admin key (rotated by the operator)",
      scope: "admin",
      agentIds: null,
      libraryIds: null,
    };
    if (keyId) {
      const key = await keyById(deps.env, tenantId, keyId);
      if (!key || key.revokedAt != null) throw notFound(`Tenant '${tenantId}' has no active key '${keyId}'.`);
      if (key.scope !== "admin")
        throw unprocessable(
          `Key '${keyId}' has scope '${key.scope}'; the operator rotates admin keys (the tenant's admin rotates the others).`,
        );
      old = [key];
      like = { name: key.name, scope: "admin", agentIds: key.agentIds ?? null, libraryIds: key.libraryIds ?? null };
    }
    const rotation = await rotateKeys(
      deps.env,
      deps,
      tenantId,
      like,
      old.map((k) => k.id),
    );
    await recordAudit(deps, caller, {
      tenantId,
      action: "key.rotate",
      target: rotation.created.id,
      detail: { revoked: rotation.revoked.map((r) => r.id) },
    });
    return { tenantId, keyId: rotation.created.id, apiKey: rotation.apiKey, revoked: rotation.revoked };
  });

/** The cron's part: recent revocations are written to KV again, so a lost write cannot keep a revoked key alive. */
export const rewriteKeyTombstones = (deps: Pick<Deps, "env">, caller: Caller, input: { at: number }) =>
  outcome(async () => {
    requireSystem(caller);
    return rewriteRecentTombstones(deps.env, input.at);
  });
