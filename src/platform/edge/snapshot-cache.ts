import type { Env } from "../../env";
import { variables } from "../../config";
import { ByteLru } from "../../core/byte-lru";
import { decodeSnapshot, SNAPSHOT_FORMAT } from "../../core/ranking/snapshot";
import { SnapshotReader } from "../../core/ranking/snapshot-source";
import { decodedBytes } from "../../core/ranking/snapshot-footprint";
import int8Scan from "../../adapters/vector-indexes/int8-scan.wasm";
import { memoryName } from "../objects/memory-name";
import type { ReadModelVersion, Unpublishable } from "../../../durable-objects/agent-memory";

/**
 * Where an isolate keeps the snapshots it ranks from: an LRU bounded by bytes, backed by the Cache
 * API of its location (which holds the base snapshots the object publishes; deltas are applied in
 * the isolate and never cached). How an entry is kept current is revalidation.ts.
 */

/** Snapshots in the location's cache are dropped after a day; any newer version replaces the pointer sooner. */
const CACHE_TTL_S = 86_400;
/**
 * The location's cache rather than Workers KV: both read a 4 MB snapshot in about 4 ms locally, but
 * KV adds a global, billed write per agent and content version, visible elsewhere only within 60 s,
 * for snapshots the object must confirm within the bound anyway.
 */
const CACHE_NAME = "praxis-read-model";
const CACHE_ORIGIN = "https://read-model.praxis.invalid";

export interface ReadSettings {
  stalenessMs: number;
  maxSnapshotBytes: number;
  cacheBytes: number;
  partBytes: number;
}

export function readSettings(env: Env): ReadSettings {
  const v = variables(env);
  return {
    stalenessMs: v.READ_STALENESS_MS,
    maxSnapshotBytes: v.READ_SNAPSHOT_MAX_BYTES,
    cacheBytes: v.READ_CACHE_BYTES,
    partBytes: v.READ_SNAPSHOT_PART_BYTES,
  };
}

/** What an isolate holds of one agent: a snapshot to rank from, or why the object must answer. */
export interface Held {
  reader: SnapshotReader | null;
  refusal: Unpublishable | null;
  version: ReadModelVersion | null;
  libraryVersion: number;
  /** When the object was last asked whether this was current (and said so). */
  validatedAt: number;
  /** When a background revalidation started, while one runs. */
  revalidating: number | null;
  /** Keys that read through this entry since their revocation was last checked. */
  keys: Set<string>;
  /** The snapshot's size as published, with the deltas applied since (0 for a refusal). */
  bytes: number;
}

let held: ByteLru<string, Held> | null = null;
export function cacheOf(settings: ReadSettings): ByteLru<string, Held> {
  if (!held || held.budget !== settings.cacheBytes) held = new ByteLru(settings.cacheBytes);
  return held;
}

/** Forgets every snapshot and refusal this isolate holds. */
export function forgetSnapshots(): void {
  held = null;
}

/**
 * Drops what this isolate holds of an agent (or a library's object) it has just deleted: its next
 * read here asks the object, which answers not-found, rather than serving the snapshot within the bound.
 */
export function forgetDeleted(tenantId: string, memoryId: string): void {
  held?.delete(memoryName(tenantId, memoryId));
}

/** Bytes the isolate's snapshots take, and how many agents it holds: what the LRU's budget bounds. */
export function readModelsHeld(env: Env): { bytes: number; agents: number; budget: number } {
  const cache = cacheOf(readSettings(env));
  return { bytes: cache.bytes, agents: cache.size, budget: cache.budget };
}

/** An entry's weight: what the decoded snapshot holds, estimated as the object estimated it before sending it (snapshot-footprint.ts). */
export const footprint = (bytes: number, reader: SnapshotReader) => decodedBytes(bytes, reader.codeBytes);

const cacheUrl = (name: string, part: string) => `${CACHE_ORIGIN}/v${SNAPSHOT_FORMAT}/${encodeURIComponent(name)}/${part}`;

async function fromLocationCache(name: string): Promise<Uint8Array | null> {
  try {
    const cache = await caches.open(CACHE_NAME);
    const pointer = await cache.match(cacheUrl(name, "latest"));
    if (!pointer) return null;
    const { incarnation, contentVersion } = (await pointer.json()) as { incarnation: string; contentVersion: number };
    const body = await cache.match(cacheUrl(name, `${incarnation}/${contentVersion}`));
    return body ? new Uint8Array(await body.arrayBuffer()) : null;
  } catch {
    return null;
  }
}

/** Keeps a base snapshot in the location's cache, and points the agent's `latest` at it. */
export async function toLocationCache(name: string, bytes: Uint8Array, version: ReadModelVersion): Promise<void> {
  const cache = await caches.open(CACHE_NAME);
  const headers = { "cache-control": `max-age=${CACHE_TTL_S}` };
  await cache.put(
    cacheUrl(name, `${version.incarnation}/${version.contentVersion}`),
    new Response(bytes, { headers: { ...headers, "content-type": "application/octet-stream" } }),
  );
  await cache.put(
    cacheUrl(name, "latest"),
    Response.json({ incarnation: version.incarnation, contentVersion: version.contentVersion }, { headers }),
  );
}

/** An entry for a snapshot as published, validated at `validatedAt`. */
export function heldSnapshot(bytes: Uint8Array, validatedAt: number): Held {
  const reader = new SnapshotReader(decodeSnapshot(bytes), int8Scan);
  const { incarnation, contentVersion, learnSeq, libraryVersion } = reader.snapshot;
  return {
    reader,
    refusal: null,
    version: { incarnation, contentVersion, learnSeq },
    libraryVersion,
    validatedAt,
    revalidating: null,
    keys: new Set(),
    bytes: bytes.length,
  };
}

/** A snapshot held from this location's cache, not yet confirmed by the object; none over the size this Worker takes decoded. */
export async function fromLocation(name: string, maxBytes: number): Promise<Held | null> {
  const bytes = await fromLocationCache(name);
  // Decoded, a snapshot holds at least its published bytes: a larger one is not decoded to find out.
  if (!bytes || bytes.length > maxBytes) return null;
  try {
    const held = heldSnapshot(bytes, -Infinity);
    return footprint(held.bytes, held.reader!) > maxBytes ? null : held;
  } catch {
    return null;
  }
}
