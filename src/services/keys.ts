import { and, asc, eq, gt, sql, type SQL } from "drizzle-orm";
import type { Env } from "../env";
import { apiKeys } from "../db/schema";
import { db } from "../db/client";
import type { KeyPrincipal, Scope } from "../core/principal";
import { TtlLru } from "../core/ttl-lru";
import { d1Read, d1Write, unavailable } from "./binding-faults";
import { benchProfileAllowed } from "../adapters/bench-latency";

/**
 * API keys resolved at the edge. A warm request finds its key in this isolate's LRU, else in Workers
 * KV (`PRAXIS_KEYS`, keyed by the key's SHA-256, never the key itself); only a miss of both reads D1,
 * the source of truth, and fills both. Changes are written through to KV and to the LRU of the
 * isolate that made them; every other isolate sees them within REVOCATION_BOUND_S (KV's cached read
 * of at most KV_CACHE_TTL_S, plus this LRU's TTL).
 */
export interface KeyRecord {
  tenantId: string;
  keyId: string;
  scope: Scope;
  agentIds: string[] | null;
  revoked: boolean;
  /** Grows with every change of the key (created, then revoked): the newer record wins. */
  version: number;
}

export type KeyRow = typeof apiKeys.$inferSelect;

const LOCAL_MAX = 10_000;
const LOCAL_TTL_MS = 10_000;
/** KV's own edge cache of a read; 60 s is the minimum Cloudflare allows. */
const KV_CACHE_TTL_S = 60;
/** Records expire so that a lost write-through cannot outlive this; a revoked key is remembered longer. */
const KV_ACTIVE_TTL_S = 3_600;
const KV_REVOKED_TTL_S = 7 * 86_400;
/** KV accepts one write per key per second; the second write of a revocation lands after any racing fill. */
const KV_WRITE_SPACING_MS = 1_100;
const REWRITE_AFTER_MS = 1_500;
export const REVOCATION_BOUND_S = KV_CACHE_TTL_S + LOCAL_TTL_MS / 1000;

/** `null`: no such key (remembered briefly, so a flood of made-up keys does not reach D1 each time). */
const isolateKeys = new TtlLru<string, KeyRecord | null>(LOCAL_MAX, LOCAL_TTL_MS);
/**
 * Lookups in flight, by key hash: a burst of requests for a key this isolate does not hold yet
 * makes one. The others never await the first one's promise: its I/O belongs to the request that
 * started it, so it never settles if that request is cancelled (nor does its `finally` remove the
 * entry), and a continuation it resolves runs in that request's context, not the waiter's. They
 * poll the LRU on their own timers instead, and after LOOKUP_SHARE_MS look the key up themselves.
 */
const lookups = new Map<string, { at: number }>();
const LOOKUP_SHARE_MS = 2_000;
const LOOKUP_POLL_MS = 10;

/** Forgets every key this isolate holds, as a fresh isolate would start. */
export function forgetCachedKeys(): void {
  isolateKeys.clear();
}

const kvName = (hash: string) => `key:${hash}`;

export function keyRecord(row: KeyRow): KeyRecord {
  return {
    tenantId: row.tenantId,
    keyId: row.id,
    scope: row.scope,
    agentIds: row.agentIds ?? null,
    revoked: row.revokedAt != null,
    version: row.revokedAt ?? row.createdAt,
  };
}

function isKeyRecord(v: unknown): v is KeyRecord {
  const r = v as KeyRecord | null;
  return (
    typeof r === "object" && r !== null && typeof r.tenantId === "string" && typeof r.keyId === "string" &&
    (r.scope === "admin" || r.scope === "write" || r.scope === "read") && typeof r.revoked === "boolean" &&
    typeof r.version === "number" && (r.agentIds === null || Array.isArray(r.agentIds))
  );
}

/** A KV read that fails or holds something unreadable is a miss: a cache failure never refuses a valid key. */
async function readKv(env: Env, hash: string): Promise<KeyRecord | null> {
  if (!env.PRAXIS_KEYS) return null;
  try {
    const value = await env.PRAXIS_KEYS.get(kvName(hash), { type: "json", cacheTtl: KV_CACHE_TTL_S });
    return isKeyRecord(value) ? value : null;
  } catch {
    return null;
  }
}

function putKv(env: Env, hash: string, record: KeyRecord): Promise<void> {
  if (!env.PRAXIS_KEYS) return Promise.resolve();
  const expirationTtl = record.revoked ? KV_REVOKED_TTL_S : KV_ACTIVE_TTL_S;
  return env.PRAXIS_KEYS.put(kvName(hash), JSON.stringify(record), { expirationTtl });
}

/** The key with this hash, revoked or not; null when there is none. */
export async function resolveKey(env: Env, hash: string, ctx: { waitUntil(p: Promise<unknown>): void }): Promise<KeyRecord | null> {
  if (env.BENCH_KEY_CACHE === "off" && benchProfileAllowed(env)) {
    const row = await d1Read(() => db(env).select().from(apiKeys).where(eq(apiKeys.hash, hash)).get());
    return row ? keyRecord(row) : null;
  }
  const local = isolateKeys.get(hash);
  if (local !== undefined) return local;
  // A burst of requests with a key this isolate does not hold yet shares one lookup.
  const started = Date.now();
  const shared = lookups.get(hash);
  if (!shared || started - shared.at > LOOKUP_SHARE_MS) {
    const mine = { at: started };
    lookups.set(hash, mine);
    return lookupKey(env, hash, ctx).finally(() => {
      if (lookups.get(hash) === mine) lookups.delete(hash);
    });
  }
  for (;;) {
    await new Promise((r) => setTimeout(r, LOOKUP_POLL_MS));
    const found = isolateKeys.get(hash);
    if (found !== undefined) return found;
    // The first lookup failed (its entry is gone, nothing cached) or is taking too long: look it up here.
    if (lookups.get(hash) !== shared || Date.now() - started >= LOOKUP_SHARE_MS) return lookupKey(env, hash, ctx);
  }
}

async function lookupKey(env: Env, hash: string, ctx: { waitUntil(p: Promise<unknown>): void }): Promise<KeyRecord | null> {
  const cached = await readKv(env, hash);
  if (cached) {
    isolateKeys.set(hash, cached);
    return cached;
  }
  // The primary, not a replica: a key minted a moment ago elsewhere must be found.
  const row = await d1Read(() => db(env).select().from(apiKeys).where(eq(apiKeys.hash, hash)).get());
  const record = row ? keyRecord(row) : null;
  isolateKeys.set(hash, record);
  if (record) ctx.waitUntil(putKv(env, hash, record).catch(() => undefined));
  return record;
}

/**
 * Writes a changed key through to this isolate and to KV. KV is checked: a revocation that did not
 * reach it would be served as valid elsewhere, so its failure is the caller's error. A second write
 * shortly after overwrites a fill that read D1 before the change and wrote KV after it.
 */
async function writeThrough(env: Env, row: KeyRow, ctx: { waitUntil(p: Promise<unknown>): void }): Promise<void> {
  const record = keyRecord(row);
  isolateKeys.set(row.hash, record);
  try {
    // KV takes one write per key per second: a retry sooner would meet the same refusal.
    await putKv(env, row.hash, record).catch(() => new Promise((r) => setTimeout(r, KV_WRITE_SPACING_MS)).then(() => putKv(env, row.hash, record)));
  } catch {
    throw unavailable("The key changed, but the change did not reach the edge cache; repeat the request.");
  }
  ctx.waitUntil(
    new Promise((r) => setTimeout(r, REWRITE_AFTER_MS)).then(() => putKv(env, row.hash, record)).catch(() => undefined),
  );
}

/** The keys a restricted admin may see and manage: those whose every agent is one of its own. */
function withinReach(admin: KeyPrincipal): SQL | undefined {
  if (!admin.agentIds) return undefined;
  const own = sql.join(admin.agentIds.map((a) => sql`${a}`), sql`, `);
  return sql`(${apiKeys.agentIds} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM json_each(${apiKeys.agentIds}) WHERE value NOT IN (${own})))`;
}

export async function createKey(
  env: Env,
  ctx: { waitUntil(p: Promise<unknown>): void },
  values: { id: string; tenantId: string; name: string; prefix: string; hash: string; scope: Scope; agentIds: string[] | null },
): Promise<KeyRow> {
  const row = await d1Write(() => db(env).insert(apiKeys).values(values).returning().get());
  // Best effort: a key missing from KV is read from D1 on first use.
  ctx.waitUntil(putKv(env, row.hash, keyRecord(row)).catch(() => undefined));
  return row;
}

export function listKeys(env: Env, admin: KeyPrincipal, limit: number, cursor?: string): Promise<KeyRow[]> {
  return d1Read(() =>
    db(env)
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.tenantId, admin.tenantId), withinReach(admin), cursor ? gt(apiKeys.id, cursor) : undefined))
      .orderBy(asc(apiKeys.id))
      .limit(limit + 1)
      .all(),
  );
}

export function keyById(env: Env, tenantId: string, id: string): Promise<KeyRow | undefined> {
  return d1Read(() => db(env).select().from(apiKeys).where(and(eq(apiKeys.id, id), eq(apiKeys.tenantId, tenantId))).get());
}

export type Revocation = { ok: true; row: KeyRow } | { ok: false; reason: "not-found" | "last-admin" };

/**
 * Revokes a key in one conditional statement. The last active unrestricted admin key of a tenant
 * cannot be revoked: the check and the write are the same statement, so two admins revoking each
 * other at once cannot both pass it (SQLite runs one statement at a time).
 */
export async function revokeKey(env: Env, ctx: { waitUntil(p: Promise<unknown>): void }, tenantId: string, id: string): Promise<Revocation> {
  const revoked = await d1Write(() =>
    env.DB.prepare(
      `UPDATE api_keys SET revoked_at = ?1
         WHERE id = ?2 AND tenant_id = ?3 AND revoked_at IS NULL
           AND (scope <> 'admin' OR agent_ids IS NOT NULL OR EXISTS (
             SELECT 1 FROM api_keys other
              WHERE other.tenant_id = ?3 AND other.id <> ?2 AND other.scope = 'admin'
                AND other.agent_ids IS NULL AND other.revoked_at IS NULL))
       RETURNING id`,
    )
      .bind(Date.now(), id, tenantId)
      .first<{ id: string }>(),
  );
  const row = await keyById(env, tenantId, id);
  if (!row) return { ok: false, reason: "not-found" };
  if (!revoked && row.revokedAt == null) return { ok: false, reason: "last-admin" };
  // Written through again when the key was already revoked: repeating a revocation repairs a lost write.
  await writeThrough(env, row, ctx);
  return { ok: true, row };
}

