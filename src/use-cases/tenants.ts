import { and, desc, eq, isNotNull, sql } from "drizzle-orm";
import type { Env } from "../env";
import { tenants } from "../db/schema";
import { db } from "../db/client";
import { mintApiKey, sha256Hex } from "../core/api-key";
import { conflict, notFound, outcome } from "../core/errors";
import { requireTenantAdmin } from "../core/principal";
import { cursorField, pageOf } from "../core/cursor";
import { olderThan } from "../db/keyset";
import { d1Read } from "../platform/objects/binding-faults";
import type { Caller, Deps } from "../platform/deps";
import { recordAudit } from "../platform/records/audit";
import { mintWebhookSecret } from "../platform/records/tenant-secrets";

/**
 * A tenant and its first unrestricted admin key, stored together (one D1 batch) or not at all. A
 * name another tenant has is refused (a re-run setup script would otherwise make a second tenant
 * unnoticed) unless `allowDuplicateName`; the check is part of the batch, so two creates at once
 * cannot both pass it.
 */
export const createTenant = (
  deps: Deps,
  caller: Caller,
  { name, allowDuplicateName = false }: { name: string; allowDuplicateName?: boolean },
) =>
  outcome(async () => {
    const tenantId = `t_${crypto.randomUUID().replace(/-/g, "").slice(0, 20)}`;
    const minted = mintApiKey((n) => crypto.getRandomValues(new Uint8Array(n)));
    const [made] = await deps.env.DB.batch([
      deps.env.DB.prepare(
        "INSERT INTO tenants (id, name) SELECT ?1, ?2 WHERE ?3 OR NOT EXISTS (SELECT 1 FROM tenants WHERE name = ?2)",
      ).bind(tenantId, name, allowDuplicateName ? 1 : 0),
      deps.env.DB.prepare(
        "INSERT INTO api_keys (id, tenant_id, name, prefix, hash, scope) SELECT ?1, ?2, 'initial admin key', ?3, ?4, 'admin' WHERE EXISTS (SELECT 1 FROM tenants WHERE id = ?2)",
      ).bind(minted.id, tenantId, minted.prefix, await sha256Hex(minted.key)),
    ]);
    if (!made?.meta.changes) {
      const existing = await db(deps.env).select({ id: tenants.id }).from(tenants).where(eq(tenants.name, name)).get();
      throw conflict(
        `A tenant named '${name}' exists (${existing?.id ?? "just created"}); pick another name, or send allowDuplicateName: true.`,
        {
          data: { tenantId: existing?.id ?? null },
        },
      );
    }
    await recordAudit(deps, caller, { tenantId, action: "tenant.create", target: tenantId, detail: { name } });
    return { tenantId, name, apiKey: minted.key, keyId: minted.id };
  });

/**
 * Gives the tenant a new webhook secret, replacing any old one at once. The old value is read in
 * the same D1 batch (a transaction) that writes the new one, so `rotated` is true of exactly the
 * calls that replaced a secret, however many run at once.
 */
export const rotateWebhookSecret = (deps: Deps, caller: Caller) =>
  outcome(async () => {
    const { tenantId } = requireTenantAdmin(caller);
    const d = db(deps.env);
    const secret = mintWebhookSecret();
    const createdAt = Date.now();
    const [before] = await d.batch([
      d.select({ secret: tenants.webhookSecret }).from(tenants).where(eq(tenants.id, tenantId)),
      d.update(tenants).set({ webhookSecret: secret }).where(eq(tenants.id, tenantId)),
    ]);
    if (!before[0]) throw notFound("The tenant no longer exists.");
    const rotated = before[0].secret !== null;
    await recordAudit(deps, caller, { tenantId, action: rotated ? "webhook-secret.rotate" : "webhook-secret.create", target: tenantId });
    return { secret, createdAt, rotated };
  });

/** Removes the tenant's webhook secret; not-found when it has none. */
export const deleteWebhookSecret = (deps: Deps, caller: Caller) =>
  outcome(async () => {
    const { tenantId } = requireTenantAdmin(caller);
    const cleared = await db(deps.env)
      .update(tenants)
      .set({ webhookSecret: null })
      .where(and(eq(tenants.id, tenantId), isNotNull(tenants.webhookSecret)))
      .returning({ id: tenants.id })
      .all();
    if (cleared.length === 0) throw notFound("This tenant has no webhook secret.");
    await recordAudit(deps, caller, { tenantId, action: "webhook-secret.delete", target: tenantId });
    return { deleted: true as const };
  });

/** Every tenant, newest first, with its count of active keys (the operator's view; no secrets). */
export const listTenants = (deps: Deps, _caller: Caller, opts: { limit: number; cursor?: string }) =>
  outcome(async () => {
    const after = cursorField(opts.cursor, { t: "number", i: "string" });
    const activeKeys = sql<number>`(SELECT count(*) FROM api_keys k WHERE k.tenant_id = tenants.id AND k.revoked_at IS NULL)`;
    const rows = await d1Read(() =>
      db(deps.env)
        .select({
          tenantId: tenants.id,
          name: tenants.name,
          createdAt: tenants.createdAt,
          hasWebhookSecret: sql<number>`${tenants.webhookSecret} IS NOT NULL`,
          activeKeys,
        })
        .from(tenants)
        .where(olderThan(tenants.createdAt, tenants.id, after ? { createdAt: after.t, id: after.i } : undefined))
        .orderBy(desc(tenants.createdAt), desc(tenants.id))
        .limit(opts.limit + 1)
        .all(),
    );
    const page = pageOf(rows, opts.limit, (last) => ({ t: last.createdAt, i: last.tenantId }));
    return { items: page.items.map((r) => ({ ...r, hasWebhookSecret: Boolean(r.hasWebhookSecret) })), nextCursor: page.nextCursor };
  });

export async function tenantExists(env: Env, tenantId: string): Promise<boolean> {
  return (await d1Read(() => db(env).select({ id: tenants.id }).from(tenants).where(eq(tenants.id, tenantId)).get())) !== undefined;
}
