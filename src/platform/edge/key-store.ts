import { and, asc, eq, gt, inArray, isNotNull, isNull, sql, type SQL } from "drizzle-orm";
import { mintApiKey, sha256Hex } from "../../core/api-key";
import type { Env } from "../../env";
import { apiKeys } from "../../db/schema";
import { db } from "../../db/client";
import type { KeyPrincipal, Scope } from "../../core/principal";
import { TtlLru } from "../../core/ttl-lru";
import { d1Read, d1Write } from "../objects/binding-faults";

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
  /** Absent in records cached before keys could be limited to libraries: every library. */
  libraryIds?: string[] | null;
  revoked: boolean;
  /** Grows with every change of the key (created, then revoked): the newer record wins. */
  version: number;
}

export type KeyRow = typeof apiKeys.$inferSelect;

const LOCAL_MAX = 10_000;
const LOCAL_TTL_MS = 10_000;
/** KV's own edge cache of a read; 60 s is the minimum Cloudflare allows. */
const KV_CACHE_TTL_S = 60;
/**
 * Records expire so that a lost write-through cannot outlive this; a revocation's tombstone is kept
 * far longer than any active record, so no active record written before it can outlast it.
 */
const KV_ACTIVE_TTL_S = 3_600;
const KV_REVOKED_TTL_S = 7 * 86_400;
/** KV accepts one write per key per second: a retry sooner would meet the same refusal. */
const KV_WRITE_SPACING_MS = 1_100;
/** Writes of a change tried before giving up; a revocation then answers 503 and the cron takes over. */
const KV_WRITE_ATTEMPTS = 3;
const REWRITE_AFTER_MS = 1_500;
/**
 * How long after a revocation the cron still checks that KV holds its tombstone: past this, every
 * active record written before the revocation has expired, and fills after it read the revocation.
 */
export const TOMBSTONE_WATCH_MS = (KV_ACTIVE_TTL_S + KV_CACHE_TTL_S) * 1000;
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

/**
 * Versions only move forward in this isolate: a fill that read D1 before a change made here must
 * not replace the change when it returns.
 */
function rememberLocal(hash: string, record: KeyRecord | null): KeyRecord | null {
  const held = isolateKeys.get(hash);
  if (held && (!record || newerOrSame(held, record))) return held;
  isolateKeys.set(hash, record);
  return record;
}

/** True when `a` must not be replaced by `b`: a revocation is final, and a later version wins. */
const newerOrSame = (a: KeyRecord, b: KeyRecord) => (a.revoked && !b.revoked) || (a.revoked === b.revoked && a.version > b.version);

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
    libraryIds: row.libraryIds ?? null,
    revoked: row.revokedAt != null,
    version: row.revokedAt ?? row.createdAt,
  };
}

function isKeyRecord(v: unknown): v is KeyRecord {
  const r = v as KeyRecord | null;
  return (
    typeof r === "object" &&
    r !== null &&
    typeof r.tenantId === "string" &&
    typeof r.keyId === "string" &&
    (r.scope === "admin" || r.scope === "write" || r.scope === "read") &&
    typeof r.revoked === "boolean" &&
    typeof r.version === "number" &&
    (r.agentIds === null || Array.isArray(r.agentIds)) &&
    (r.libraryIds === undefined || r.libraryIds === null || Array.isArray(r.libraryIds))
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

/**
 * Which of these keys D1 (the source of truth) holds revoked. Reads served at the edge ask it of
 * the keys they serve, so a revocation reaches them within their staleness bound rather than this
 * cache's REVOCATION_BOUND_S.
 */
export async function revokedAmong(env: Env, keyIds: readonly string[]): Promise<string[]> {
  if (!keyIds.length) return [];
  const rows = await d1Read(() =>
    db(env)
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(and(inArray(apiKeys.id, [...keyIds]), isNotNull(apiKeys.revokedAt)))
      .all(),
  );
  return rows.map((r) => r.id);
}

/** The key with this hash, revoked or not; null when there is none. */
export async function resolveKey(env: Env, hash: string, ctx: { waitUntil(p: Promise<unknown>): void }): Promise<KeyRecord | null> {
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
  if (cached) return rememberLocal(hash, cached);
  // The primary, not a replica: a key minted a moment ago elsewhere must be found.
  const record = await readD1(env, hash);
  const kept = rememberLocal(hash, record);
  if (record && kept === record && env.PRAXIS_KEYS) ctx.waitUntil(fillKv(env, hash, record).catch(() => undefined));
  return kept;
}

async function readD1(env: Env, hash: string): Promise<KeyRecord | null> {
  const row = await d1Read(() => db(env).select().from(apiKeys).where(eq(apiKeys.hash, hash)).get());
  return row ? keyRecord(row) : null;
}

/**
 * Fills KV with a record read from D1. KV has no compare-and-set, and a fill's write may land after
 * a revocation's write-through however late (a slow or retried put). So once its write has landed
 * the fill reads D1 again: a change made since is written over it by the fill itself. A change made
 * after that read writes KV after the fill's write had landed, and so wins.
 */
async function fillKv(env: Env, hash: string, record: KeyRecord): Promise<void> {
  if (record.revoked) return putKv(env, hash, record);
  await putKv(env, hash, record);
  const now = await readD1(env, hash);
  if (now && (now.revoked || now.version > record.version)) {
    rememberLocal(hash, now);
    await putUntilLanded(env, hash, now, KV_WRITE_ATTEMPTS);
  }
}

/** Retries a KV write, spaced by KV's per-key write rate; throws the last error when none landed. */
async function putUntilLanded(env: Env, hash: string, record: KeyRecord, attempts: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await putKv(env, hash, record);
    } catch (e) {
      if (attempt >= attempts) throw e;
      await new Promise((r) => setTimeout(r, KV_WRITE_SPACING_MS));
    }
  }
}

/**
 * Writes a changed key through to this isolate and to KV, retrying a refused write. Answers whether
 * KV has it: `pending` when every attempt failed; the cron then writes a revocation until it lands
 * (see rewriteRecentTombstones). A second write shortly after overwrites a fill that read D1 before
 * the change and wrote KV after it (fills also check D1 again after their write, see fillKv).
 */
async function writeThrough(env: Env, row: KeyRow, ctx: { waitUntil(p: Promise<unknown>): void }): Promise<EdgeCacheState> {
  const record = keyRecord(row);
  rememberLocal(row.hash, record);
  try {
    await putUntilLanded(env, row.hash, record, KV_WRITE_ATTEMPTS);
  } catch {
    return "pending";
  }
  ctx.waitUntil(new Promise((r) => setTimeout(r, REWRITE_AFTER_MS)).then(() => putKv(env, row.hash, record)).catch(() => undefined));
  return "written";
}

/** `written`: KV holds the change. `pending`: D1 holds it, KV writes are still being retried. */
export type EdgeCacheState = "written" | "pending";

/**
 * Revocations of the last TOMBSTONE_WATCH_MS whose KV record is not their tombstone (a write that
 * never landed, or a fill that beat it) get it written again. Run by the cron.
 */
export async function rewriteRecentTombstones(env: Env, at: number, limit = 500): Promise<number> {
  if (!env.PRAXIS_KEYS) return 0;
  const rows = await db(env)
    .select()
    .from(apiKeys)
    .where(gt(apiKeys.revokedAt, at - TOMBSTONE_WATCH_MS))
    .orderBy(asc(apiKeys.revokedAt))
    .limit(limit)
    .all();
  let rewritten = 0;
  for (const row of rows) {
    const held = await readKv(env, row.hash);
    if (held?.revoked) continue;
    try {
      await putKv(env, row.hash, keyRecord(row));
      rewritten++;
    } catch {
      // The next cron run tries again.
    }
  }
  return rewritten;
}

/** The keys a restricted admin may see and manage: those whose every agent and every library is one of its own. */
function withinReach(admin: KeyPrincipal): SQL | undefined {
  return and(subsetOf(apiKeys.agentIds, admin.agentIds), subsetOf(apiKeys.libraryIds, admin.libraryIds ?? null));
}

/** A JSON list column restricted to members of `own` (null `own`: no restriction). */
function subsetOf(column: typeof apiKeys.agentIds | typeof apiKeys.libraryIds, own: readonly string[] | null): SQL | undefined {
  if (!own) return undefined;
  const members = sql.join(
    own.map((a) => sql`${a}`),
    sql`, `,
  );
  return sql`(${column} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM json_each(${column}) WHERE value NOT IN (${members})))`;
}

export async function createKey(
  env: Env,
  ctx: { waitUntil(p: Promise<unknown>): void },
  values: {
    id: string;
    tenantId: string;
    name: string;
    prefix: string;
    hash: string;
    scope: Scope;
    agentIds: string[] | null;
    libraryIds?: string[] | null;
  },
): Promise<KeyRow> {
  const row = await d1Write(() => db(env).insert(apiKeys).values(values).returning().get());
  // Best effort: a key missing from KV is read from D1 on first use.
  ctx.waitUntil(putKv(env, row.hash, keyRecord(row)).catch(() => undefined));
  return row;
}

/** Up to `limit + 1` of the keys within the admin's reach, by id, after the key `afterId`. */
export function listKeys(env: Env, admin: KeyPrincipal, limit: number, afterId?: string): Promise<KeyRow[]> {
  return d1Read(() =>
    db(env)
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.tenantId, admin.tenantId), withinReach(admin), afterId ? gt(apiKeys.id, afterId) : undefined))
      .orderBy(asc(apiKeys.id))
      .limit(limit + 1)
      .all(),
  );
}

export function keyById(env: Env, tenantId: string, id: string): Promise<KeyRow | undefined> {
  return d1Read(() =>
    db(env)
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.id, id), eq(apiKeys.tenantId, tenantId)))
      .get(),
  );
}

export type Revocation = { ok: true; row: KeyRow; edgeCache: EdgeCacheState } | { ok: false; reason: "not-found" | "last-admin" };

/**
 * Revokes a key in one conditional statement. The last active unrestricted admin key of a tenant
 * (restricted neither to agents nor to libraries) cannot be revoked: the check and the write are the
 * same statement, so two admins revoking each other at once cannot both pass it (SQLite runs one
 * statement at a time).
 */
export async function revokeKey(
  env: Env,
  ctx: { waitUntil(p: Promise<unknown>): void },
  tenantId: string,
  id: string,
): Promise<Revocation> {
  const revoked = await d1Write(() =>
    env.DB.prepare(
      `UPDATE api_keys SET revoked_at = ?1
         WHERE id = ?2 AND tenant_id = ?3 AND revoked_at IS NULL
           AND (scope <> 'admin' OR agent_ids IS NOT NULL OR library_ids IS NOT NULL OR EXISTS (
             SELECT 1 FROM api_keys other
              WHERE other.tenant_id = ?3 AND other.id <> ?2 AND other.scope = 'admin'
                AND other.agent_ids IS NULL AND other.library_ids IS NULL AND other.revoked_at IS NULL))
       RETURNING id`,
    )
      .bind(Date.now(), id, tenantId)
      .first<{ id: string }>(),
  );
  const row = await keyById(env, tenantId, id);
  if (!row) return { ok: false, reason: "not-found" };
  if (!revoked && row.revokedAt == null) return { ok: false, reason: "last-admin" };
  // Written through again when the key was already revoked: repeating a revocation repairs a lost write.
  return { ok: true, row, edgeCache: await writeThrough(env, row, ctx) };
}

export interface Rotation {
  created: KeyRow;
  /** The new secret; shown once. */
  apiKey: string;
  revoked: { id: string; edgeCache: EdgeCacheState }[];
}

/**
 * Replaces keys by one new key of the same scope, agents and libraries: the new key is stored first, so a
 * tenant's last unrestricted admin key can be rotated (its revocation then finds the new one), and
 * each old key is revoked through revokeKey, KV tombstone included. There is no grace period: an
 * old key stops working from its revocation on (within REVOCATION_BOUND_S at other locations).
 */
export async function rotateKeys(
  env: Env,
  ctx: { waitUntil(p: Promise<unknown>): void },
  tenantId: string,
  like: Pick<KeyRow, "name" | "scope" | "agentIds" | "libraryIds">,
  oldKeyIds: readonly string[],
): Promise<Rotation> {
  const minted = mintApiKey((n) => crypto.getRandomValues(new Uint8Array(n)));
  const created = await createKey(env, ctx, {
    id: minted.id,
    tenantId,
    name: like.name,
    prefix: minted.prefix,
    hash: await sha256Hex(minted.key),
    scope: like.scope,
    agentIds: like.agentIds ?? null,
    libraryIds: like.libraryIds ?? null,
  });
  const revoked: Rotation["revoked"] = [];
  for (const id of oldKeyIds) {
    const result = await revokeKey(env, ctx, tenantId, id);
    if (result.ok) revoked.push({ id, edgeCache: result.edgeCache });
  }
  return { created, apiKey: minted.key, revoked };
}

/** The tenant's active unrestricted admin keys (no agent or library restriction): the ones an operator's rotation replaces. */
export function activeTenantAdminKeys(env: Env, tenantId: string): Promise<KeyRow[]> {
  return d1Read(() =>
    db(env)
      .select()
      .from(apiKeys)
      .where(
        and(
          eq(apiKeys.tenantId, tenantId),
          eq(apiKeys.scope, "admin"),
          isNull(apiKeys.agentIds),
          isNull(apiKeys.libraryIds),
          isNull(apiKeys.revokedAt),
        ),
      )
      .all(),
  );
}
