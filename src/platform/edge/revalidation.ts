import type { Env } from "../../env";
import type { Deps } from "../deps";
import type { ReadFallback } from "../../core/retrieval-types";
import { TtlLru } from "../../core/ttl-lru";
import { DomainError, unauthorized, versionNotReached } from "../../core/errors";
import { deltaBytes } from "../../core/ranking/snapshot-delta";
import { decodedBytes } from "../../core/ranking/snapshot-footprint";
import type { SnapshotReader, SubscribedReader } from "../../core/ranking/snapshot-source";
import { libraryMemoryId } from "../../core/shared-lessons";
import { memoryName } from "../objects/memory-name";
import { resilientMemory } from "../objects/agent-access";
import { REVOCATION_BOUND_S, revokedAmong } from "./key-store";
import type { SnapshotBase } from "../../../durable-objects/agent-memory";
import {
  cacheOf,
  footprint,
  forgetSnapshots,
  fromLocation,
  type Held,
  heldSnapshot,
  readSettings,
  toLocationCache,
} from "./snapshot-cache";

/**
 * Keeping what an isolate holds of an agent current (the consistency model is read-pipeline.ts's
 * header): asking the agent's object what changed, applying its answer, and checking, at the same
 * time, that the keys which read through the entry are not revoked.
 */

/** An agent the object said cannot be served here is asked again after this long. */
const REFUSAL_RECHECK_MS = 30_000;
/** A background revalidation this old is taken to have died with its request: the next read starts another. */
const REVALIDATION_LEASE_MS = 10_000;
/**
 * How long a read whose `minVersion` is past the agent's library version waits for it (a write in
 * flight, or answered elsewhere an instant before) before answering 409 version-not-reached; it asks
 * again after 50, 100, 200, then every 400 ms.
 */
const MIN_VERSION_WAIT_MS = 2_000;
const MIN_VERSION_FIRST_PAUSE_MS = 50;
const MIN_VERSION_MAX_PAUSE_MS = 400;

/** Revoked keys this isolate has seen while serving reads, kept until the key cache refuses them itself. */
const revoked = new Map<string, number>();
const REVOKED_KEEP_MS = REVOCATION_BOUND_S * 1000;
/** When each key that read here was last found not revoked in D1. */
const keyChecks = new TtlLru<string, number>(10_000, 86_400_000);

/**
 * Agents whose snapshot this isolate failed to fetch or apply (a failed call to the object, a
 * transfer cut short), by object name, with when: their reads go to the object for this long
 * rather than each fetching again what just failed.
 */
const SNAPSHOT_RETRY_MS = 5_000;
const failedSnapshots = new TtlLru<string, true>(10_000, SNAPSHOT_RETRY_MS);

/**
 * Agents whose base snapshot a read of this isolate is fetching and decoding now, with when it
 * started. Another read that would fetch one too is answered by the object meanwhile: an isolate
 * decodes one copy of an agent's snapshot at a time (16 first reads of a 100,000-memory agent
 * would otherwise hold 16 copies of about 57 MiB). A fetch this old is taken to have died with its
 * request: the next read starts another.
 */
const SNAPSHOT_FETCH_LEASE_MS = 30_000;
const fetching = new TtlLru<string, true>(10_000, SNAPSHOT_FETCH_LEASE_MS);

/** Thrown by revalidate when another read of this isolate is fetching the agent's snapshot. */
class FetchedElsewhere extends Error {}

/** Shared libraries this isolate found deleted (their ids are never used again), by object name. */
const goneLibraries = new TtlLru<string, true>(10_000, 86_400_000);

/** Forgets every snapshot and refusal this isolate holds, as a fresh isolate would start. */
export function forgetReadModels(): void {
  forgetSnapshots();
  failedSnapshots.clear();
  fetching.clear();
  goneLibraries.clear();
  revoked.clear();
  keyChecks.clear();
}

export interface ReadCaller {
  tenantId: string;
  agentId: string;
  keyId: string;
  readOnly: boolean;
}

type ReadDeps = Pick<Deps, "env" | "waitUntil">;
type Served = { reader: SnapshotReader; libraryVersion: number; validatedAt: number } | { fallback: ReadFallback };

/** Looks these keys up in D1: a revoked one is refused here from now on, the others count as checked at `at`. */
async function checkKeys(env: Env, keyIds: readonly string[], at: number): Promise<void> {
  if (!keyIds.length) return;
  const gone = new Set(await revokedAmong(env, keyIds));
  for (const keyId of keyIds) {
    if (gone.has(keyId)) revoked.set(keyId, at);
    else keyChecks.set(keyId, at);
  }
}

/**
 * Asks the object what `entry` (or nothing) lacks, and applies the answer: the entry revalidated or
 * moved by deltas, a new entry from a base snapshot and the deltas since, or the object's refusal.
 * Revocations of the keys that read through the entry since the last check (and of `alsoCheck`)
 * are looked up in D1 at the same time.
 */
async function revalidate(
  deps: ReadDeps,
  tenantId: string,
  agentId: string,
  entry: Held | null,
  alsoCheck: readonly string[] = [],
): Promise<Held> {
  const settings = readSettings(deps.env);
  const name = memoryName(tenantId, agentId);
  const asked = Date.now();
  const keys = [...new Set([...(entry?.keys ?? []), ...alsoCheck])];
  entry?.keys.clear();
  const [answer] = await Promise.all([
    resilientMemory(deps.env, tenantId, agentId).readModel({
      have: entry?.version ?? null,
      maxBytes: settings.maxSnapshotBytes,
      partBytes: settings.partBytes,
    }),
    checkKeys(deps.env, keys, asked),
  ]);
  const cache = cacheOf(settings);
  // An entry taken from the location's cache joins the isolate's once the object confirms it; a delta changes its weight.
  const keep = (held: Held) => {
    if (held.reader) cache.set(name, held, footprint(held.bytes, held.reader));
    return held;
  };
  if (answer.kind === "current" && entry) {
    entry.validatedAt = asked;
    entry.libraryVersion = answer.libraryVersion;
    return keep(entry);
  }
  if (answer.kind === "delta" && entry?.reader && (!answer.content || answer.content.model === entry.reader.snapshot.model)) {
    if (answer.content) {
      entry.reader.applyContent(answer.content);
      entry.bytes += deltaBytes(answer.content);
    }
    entry.reader.apply(answer.delta);
    entry.version = { ...entry.version!, contentVersion: entry.reader.snapshot.contentVersion, learnSeq: answer.delta.learnSeq };
    entry.libraryVersion = answer.delta.libraryVersion;
    entry.validatedAt = asked;
    return keep(entry);
  }
  if (answer.kind === "snapshot") {
    if (fetching.get(name)) throw new FetchedElsewhere();
    fetching.set(name, true);
    let bytes: Uint8Array | null;
    try {
      // Other agents' snapshots make room before it decodes (at most this, codes or not); the one it
      // replaces keeps serving reads meanwhile, so they do not each fetch and decode another.
      cache.makeRoom(decodedBytes(answer.base.total, 0), name);
      bytes = await wholeSnapshot(deps, tenantId, agentId, answer.bytes, answer.base, settings.partBytes);
    } finally {
      fetching.delete(name);
    }
    // The base was replaced while its parts travelled: start again from what the object has now.
    if (!bytes) return revalidate(deps, tenantId, agentId, null);
    const next = heldSnapshot(bytes, asked);
    deps.waitUntil(toLocationCache(name, bytes, next.version!).catch(() => undefined));
    const reader = next.reader!;
    if (answer.content) {
      reader.applyContent(answer.content);
      next.bytes += deltaBytes(answer.content);
    }
    if (answer.delta) reader.apply(answer.delta);
    next.version = { ...next.version!, contentVersion: reader.snapshot.contentVersion, learnSeq: reader.learnSeq };
    next.libraryVersion = reader.snapshot.libraryVersion;
    return keep(next);
  }
  if (answer.kind === "unpublishable") {
    const next: Held = {
      reader: null,
      refusal: answer.reason,
      version: null,
      libraryVersion: answer.libraryVersion,
      validatedAt: asked,
      revalidating: null,
      keys: new Set(),
      bytes: 0,
    };
    cache.set(name, next, 0);
    return next;
  }
  // A delta or "current" for an entry this isolate no longer holds as asked: start from nothing.
  return revalidate(deps, tenantId, agentId, null);
}

/** A base snapshot whole, its parts after the first fetched one by one; null when the object built another meanwhile. */
async function wholeSnapshot(
  deps: ReadDeps,
  tenantId: string,
  agentId: string,
  first: Uint8Array,
  base: SnapshotBase,
  partBytes: number,
): Promise<Uint8Array | null> {
  if (first.length >= base.total) return first;
  const whole = new Uint8Array(base.total);
  whole.set(first);
  for (let offset = first.length; offset < base.total; ) {
    const part = await resilientMemory(deps.env, tenantId, agentId).snapshotPart({ base, offset, partBytes });
    if (!part?.length) return null;
    whole.set(part, offset);
    offset += part.length;
  }
  return whole;
}

/**
 * The snapshot a read may be ranked from, fresh within the bound (and of `minVersion` at least), or
 * why the object must answer. An agent deleted meanwhile answers not-found, as its object does.
 */
export async function servable(
  deps: ReadDeps,
  tenantId: string,
  agentId: string,
  keyId: string,
  minVersion: number | undefined,
): Promise<Served> {
  const settings = readSettings(deps.env);
  const name = memoryName(tenantId, agentId);
  const cache = cacheOf(settings);
  const now = Date.now();
  let entry = cache.get(name) ?? null;
  if (entry?.refusal && now - entry.validatedAt < REFUSAL_RECHECK_MS) return { fallback: entry.refusal };
  if (failedSnapshots.get(name)) return { fallback: "snapshot-unavailable" };
  // Nothing held, and another read is fetching it: a snapshot is what this one would fetch too.
  if (!entry && fetching.get(name)) return { fallback: "snapshot-loading" };
  // A bound of 0 asks the object on every read: one small round trip, and reads never lag.
  const within = (at: number) => settings.stalenessMs > 0 && now - at <= settings.stalenessMs;
  const fresh =
    entry !== null && !entry.refusal && within(entry.validatedAt) && (minVersion === undefined || entry.libraryVersion >= minVersion);
  const keyUnchecked = !within(keyChecks.get(keyId) ?? -Infinity);
  if (!fresh) {
    entry ??= await fromLocation(name, settings.maxSnapshotBytes);
    try {
      entry = await revalidate(deps, tenantId, agentId, entry, keyUnchecked ? [keyId] : []);
    } catch (err) {
      if (err instanceof FetchedElsewhere) return { fallback: "snapshot-loading" };
      if (isNotFound(err)) cache.delete(name);
      // The object's own refusals (not found, overloaded, unavailable) stand: asking it again would not help.
      if (err instanceof DomainError || isNotFound(err)) throw err;
      // Anything else failed on the way (a message over the RPC limit, a snapshot that would not
      // decode): the object answers the read itself.
      failedSnapshots.set(name, true);
      return { fallback: "snapshot-unavailable" };
    }
  } else {
    if (keyUnchecked) await checkKeys(deps.env, [keyId], now);
    if (
      now - entry!.validatedAt > settings.stalenessMs / 2 &&
      !(entry!.revalidating !== null && now - entry!.revalidating < REVALIDATION_LEASE_MS)
    ) {
      const current = entry!;
      current.revalidating = now;
      deps.waitUntil(
        revalidate(deps, tenantId, agentId, current)
          .catch((err: unknown) => {
            if (isNotFound(err)) cache.delete(name);
          })
          .finally(() => (current.revalidating = null)),
      );
    }
  }
  if (minVersion !== undefined && entry!.libraryVersion < minVersion) throw versionNotReached(minVersion, entry!.libraryVersion);
  if (!entry!.reader) return { fallback: entry!.refusal ?? "remote-index" };
  entry!.keys.add(keyId);
  return { reader: entry!.reader, libraryVersion: entry!.libraryVersion, validatedAt: entry!.validatedAt };
}

/**
 * The snapshots of the libraries the agent's snapshot subscribes to, each fresh within the bound,
 * or why the object must answer: a library the edge cannot rank from (too large, searched
 * remotely, embedded by another model), or one whose object failed (the agent's object leaves
 * such a library out of its answer and serves the rest). A deleted library is left out, as the
 * object leaves it out; a read writes nothing, and the agent's sweep ends the subscription.
 */
export async function librariesOf(
  deps: ReadDeps,
  caller: ReadCaller,
  agent: SnapshotReader,
): Promise<{ libraries: SubscribedReader[]; validatedAt: number } | { fallback: ReadFallback }> {
  let validatedAt = Infinity;
  const found = await Promise.all(
    agent.snapshot.subscriptions.map(async (sub) => {
      const id = libraryMemoryId(sub.libraryId);
      const name = memoryName(caller.tenantId, id);
      if (!goneLibraries.get(name)) {
        try {
          return { sub, at: await servable(deps, caller.tenantId, id, caller.keyId, undefined) };
        } catch (err) {
          if (!isNotFound(err)) return { sub, at: { fallback: "subscriptions" as const } };
          goneLibraries.set(name, true);
        }
      }
      return null;
    }),
  );
  const libraries: SubscribedReader[] = [];
  for (const f of found) {
    if (!f) continue;
    if ("fallback" in f.at) return { fallback: "subscriptions" };
    const { reader } = f.at;
    if (reader.snapshot.model !== agent.snapshot.model || reader.snapshot.dims !== agent.snapshot.dims)
      return { fallback: "subscriptions" };
    validatedAt = Math.min(validatedAt, f.at.validatedAt);
    libraries.push({ libraryId: f.sub.libraryId, weight: f.sub.weight, reader });
  }
  return { libraries, validatedAt };
}

/**
 * `read` again while it finds the agent short of `minVersion`, until MIN_VERSION_WAIT_MS have
 * passed; then its version-not-reached stands. Without `minVersion`, `read` once.
 */
export async function untilReached<T>(minVersion: number | undefined, read: () => Promise<T>): Promise<T> {
  if (minVersion === undefined) return read();
  const deadline = Date.now() + MIN_VERSION_WAIT_MS;
  for (let pause = MIN_VERSION_FIRST_PAUSE_MS; ; pause = Math.min(2 * pause, MIN_VERSION_MAX_PAUSE_MS)) {
    try {
      return await read();
    } catch (err) {
      if (!(err instanceof DomainError && err.kind === "version-not-reached") || Date.now() + pause > deadline) throw err;
      await new Promise((r) => setTimeout(r, pause));
    }
  }
}

/** The agent is gone (deleted, or never created): its object's answer, as a problem or as a domain error. */
const isNotFound = (err: unknown) =>
  typeof err === "object" &&
  err !== null &&
  ((err as { status?: number }).status === 404 || (err as { kind?: string }).kind === "not-found");

/** A key this isolate found revoked while serving reads is refused here at once, not only once the key cache learns it. */
export function refuseRevoked(keyId: string): void {
  const at = revoked.get(keyId);
  if (at === undefined) return;
  if (Date.now() - at > REVOKED_KEEP_MS) revoked.delete(keyId);
  else throw unauthorized("The API key is unknown or revoked.");
}
