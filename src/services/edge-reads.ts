import type { Env } from "../env";
import { variables } from "../config";
import type { Deps } from "./deps";
import type { MemoryFilter, ReadFallback, RetrieveAnswer, RetrieveRequest, RetrieveResponse } from "../core/memory-types";
import { ByteLru } from "../core/byte-lru";
import { TtlLru } from "../core/ttl-lru";
import { DomainError, unauthorized, versionNotReached } from "../core/errors";
import { decodeSnapshot, SNAPSHOT_FORMAT } from "../core/ranking/snapshot";
import { deltaBytes } from "../core/ranking/snapshot-delta";
import { lexicallyServable, SnapshotReader, type SubscribedReader } from "../core/ranking/snapshot-source";
import { libraryMemoryId } from "../core/shared-lessons";
import { retrievedItems } from "../core/ranking/rank";
import { assemblePrompt, type PromptRequest, type PromptResponse } from "../core/ranking/prompt";
import { effectiveFilter } from "../core/ranking/filter";
import { newRetrievalId, retrievalClaims, signRetrieval, type TokenItem } from "../core/retrieval-token";
import type { Exploration } from "../core/probation";
import { createEmbedder } from "../adapters/embedder-factory";
import int8Scan from "../adapters/vector-indexes/int8-scan.wasm";
import { meteredEmbedder } from "../llm";
import { memoryName } from "./agent-memory";
import { resilientMemory } from "./agent-access";
import { REVOCATION_BOUND_S, revokedAmong } from "./keys";
import type { ReadModelVersion, Unpublishable } from "../../durable-objects/agent-memory";

/**
 * Reads served where the request lands (issue 29). Each isolate keeps snapshots of the agents it
 * reads for (the agent's object publishes them, see durable-objects/agent-memory/read-model.ts) in
 * an LRU bounded by bytes, backed by the Cache API of its location, and ranks retrievals and prompt
 * blocks from them with the object's own code (src/core/ranking). The consistency model (README,
 * "Reads at the edge"):
 *
 * - A snapshot serves while the object confirmed it current at most the staleness bound ago
 *   (READ_STALENESS_MS, 2 s by default). Past half the bound the next read asks the object again in
 *   the background (`waitUntil`), so steady traffic never waits; past the bound a read waits for
 *   the answer. The object answers "current", a delta of what rewards and uses changed (Q, counts,
 *   usage memory, the re-ranker), or a new snapshot when content changed. So quarantines, deletions
 *   and new lessons reach these reads within the bound, as do deletions of the agent (the object
 *   answers not-found) and revocations of the keys that read (checked in D1 at each revalidation).
 * - `minVersion` (read-your-writes) waits for a snapshot of at least that library version, and for
 *   the version itself up to MIN_VERSION_WAIT_MS (then 409 version-not-reached).
 * - `consistency: "strong"`, reads that join an episode (the object keeps their record, and checks
 *   the episode is open, at the moment of the read), query words FTS5 tokenizes in ways this does
 *   not reproduce, agents whose snapshot is too large or searched remotely, and agents that
 *   subscribe to shared libraries (their objects merge the libraries' lessons at each read) are
 *   answered by the object, with `fallbackReason` saying why.
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
}

export function readSettings(env: Env): ReadSettings {
  const v = variables(env);
  return { stalenessMs: v.READ_STALENESS_MS, maxSnapshotBytes: v.READ_SNAPSHOT_MAX_BYTES, cacheBytes: v.READ_CACHE_BYTES };
}

/** What an isolate holds of one agent: a snapshot to rank from, or why the object must answer. */
interface Held {
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
  /** The snapshot's size as published (0 for a refusal). */
  bytes: number;
}

let held: ByteLru<string, Held> | null = null;
function cacheOf(settings: ReadSettings): ByteLru<string, Held> {
  if (!held || held.budget !== settings.cacheBytes) held = new ByteLru(settings.cacheBytes);
  return held;
}

/** Revoked keys this isolate has seen while serving reads, kept until the key cache refuses them itself. */
const revoked = new Map<string, number>();
const REVOKED_KEEP_MS = REVOCATION_BOUND_S * 1000;
/** When each key that read here was last found not revoked in D1. */
const keyChecks = new TtlLru<string, number>(10_000, 86_400_000);

/** Shared libraries this isolate found deleted (their ids are never used again), by object name. */
const goneLibraries = new TtlLru<string, true>(10_000, 86_400_000);
/** Subscribers told here that a library is gone, by `${agent object}|${libraryId}`, until their snapshot drops it. */
const toldGone = new TtlLru<string, true>(10_000, 60_000);

/** Forgets every snapshot and refusal this isolate holds, as a fresh isolate would start. */
export function forgetReadModels(): void {
  held = null;
  goneLibraries.clear();
  toldGone.clear();
  revoked.clear();
  keyChecks.clear();
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

/** An entry's weight: the snapshot's bytes as published (its strings and maps take about as much again) plus the scans' typed memory. */
const footprint = (bytes: number, reader: SnapshotReader) => 2 * bytes + reader.scanBytes;

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

async function toLocationCache(name: string, bytes: Uint8Array, version: ReadModelVersion): Promise<void> {
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
 * Asks the object what `entry` (or nothing) lacks, and applies the answer: the entry revalidated, a
 * new entry, or the object's refusal. Revocations of the keys that read through the entry since the
 * last check (and of `alsoCheck`) are looked up in D1 at the same time.
 */
async function revalidate(
  deps: Pick<Deps, "env" | "waitUntil">,
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
    resilientMemory(deps.env, tenantId, agentId).readModel({ have: entry?.version ?? null, maxBytes: settings.maxSnapshotBytes }),
    checkKeys(deps.env, keys, asked),
  ]);
  const cache = cacheOf(settings);
  // An entry taken from the location's cache joins the isolate's once the object confirms it.
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
    const reader = new SnapshotReader(decodeSnapshot(answer.bytes), int8Scan);
    const built = {
      incarnation: reader.snapshot.incarnation,
      contentVersion: reader.snapshot.contentVersion,
      learnSeq: reader.snapshot.learnSeq,
    };
    deps.waitUntil(toLocationCache(name, answer.bytes, built).catch(() => undefined));
    if (answer.content) reader.applyContent(answer.content);
    if (answer.delta) reader.apply(answer.delta);
    const next: Held = {
      reader,
      refusal: null,
      version: { ...built, contentVersion: reader.snapshot.contentVersion, learnSeq: reader.learnSeq },
      libraryVersion: reader.snapshot.libraryVersion,
      validatedAt: asked,
      revalidating: null,
      keys: new Set(),
      bytes: answer.bytes.length + (answer.content ? deltaBytes(answer.content) : 0),
    };
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

/** A snapshot held from this location's cache, not yet confirmed by the object; none over the size this Worker takes. */
async function fromLocation(name: string, maxBytes: number): Promise<Held | null> {
  const bytes = await fromLocationCache(name);
  if (!bytes || bytes.length > maxBytes) return null;
  try {
    const reader = new SnapshotReader(decodeSnapshot(bytes), int8Scan);
    const { incarnation, contentVersion, learnSeq, libraryVersion } = reader.snapshot;
    return {
      reader,
      refusal: null,
      version: { incarnation, contentVersion, learnSeq },
      libraryVersion,
      validatedAt: -Infinity,
      revalidating: null,
      keys: new Set(),
      bytes: bytes.length,
    };
  } catch {
    return null;
  }
}

/**
 * The snapshot a read may be ranked from, fresh within the bound (and of `minVersion` at least), or
 * why the object must answer. An agent deleted meanwhile answers not-found, as its object does.
 */
async function servable(
  deps: Pick<Deps, "env" | "waitUntil">,
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
      if (isNotFound(err)) cache.delete(name);
      throw err;
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
 * object leaves it out; the agent's object is told once, so its subscription ends as the object's
 * own read would end it.
 */
async function librariesOf(
  deps: Pick<Deps, "env" | "waitUntil">,
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
      const told = `${memoryName(caller.tenantId, caller.agentId)}|${sub.libraryId}`;
      if (!toldGone.get(told)) {
        await resilientMemory(deps.env, caller.tenantId, caller.agentId).unsubscribe({ libraryId: sub.libraryId });
        toldGone.set(told, true);
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
async function untilReached<T>(minVersion: number | undefined, read: () => Promise<T>): Promise<T> {
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
function refuseRevoked(keyId: string): void {
  const at = revoked.get(keyId);
  if (at === undefined) return;
  if (Date.now() - at > REVOKED_KEEP_MS) revoked.delete(keyId);
  else throw unauthorized("The API key is unknown or revoked.");
}

/** The query embedded as the snapshot's embedder does, or null when this Worker cannot (the object then answers). */
async function embedFor(env: Env, reader: SnapshotReader, tenantId: string, agentId: string, text: string): Promise<Float32Array | null> {
  try {
    const embedder = meteredEmbedder(createEmbedder(env, reader.snapshot.config.embedder ?? undefined), env, tenantId, agentId);
    if (embedder.model !== reader.snapshot.model) return null;
    const [vec] = await embedder.embed([text]);
    return vec && vec.length === reader.snapshot.dims ? vec : null;
  } catch {
    return null;
  }
}

export interface ReadCaller {
  tenantId: string;
  agentId: string;
  keyId: string;
  readOnly: boolean;
}

export interface ReadOptions {
  minVersion?: number | undefined;
  consistency?: "bounded" | "strong" | undefined;
  episodeId?: string | undefined;
}

/** Why the object must answer before any snapshot is looked at, if it must. */
function preflight(opts: ReadOptions, query: string | undefined): ReadFallback | null {
  if (opts.consistency === "strong") return "strong";
  if (opts.episodeId) return "episode";
  if (query !== undefined && !lexicallyServable(query)) return "query-words";
  return null;
}

const fromObject = <T extends { libraryVersion: number }>(answer: T, fallbackReason: ReadFallback) => ({
  ...answer,
  snapshotAgeMs: 0,
  servedFrom: "object" as const,
  fallbackReason,
});

/** The token a Worker answers for what it ranked, or null when it would be too long (the object then records the retrieval). */
function sign(
  reader: SnapshotReader,
  r: {
    id?: string;
    query: string;
    queryVec: Float32Array | null;
    phase: string | null;
    lambda: number;
    items: TokenItem[];
    caller: ReadCaller;
    at: number;
    trial?: Exploration;
  },
) {
  const claims = retrievalClaims({
    ...(r.id ? { id: r.id } : {}),
    query: r.query,
    queryVec: r.queryVec,
    phase: r.phase,
    lambda: r.lambda,
    items: r.items,
    asker: { keyId: r.caller.keyId, readOnly: r.caller.readOnly },
    at: r.at,
    retentionDays: reader.snapshot.config.retrievalsDays,
    trial: r.trial ?? null,
  });
  return signRetrieval(reader.snapshot.signing, claims);
}

/** A retrieval, ranked here from the agent's snapshot when it may be, else by `throughObject`. */
export async function retrieveNearby(
  deps: Pick<Deps, "env" | "waitUntil">,
  caller: ReadCaller,
  req: RetrieveRequest,
  throughObject: () => Promise<RetrieveAnswer>,
): Promise<RetrieveResponse> {
  refuseRevoked(caller.keyId);
  const viaObject = () => untilReached(req.minVersion, throughObject);
  const early = preflight(req, req.query);
  if (early) return fromObject(await viaObject(), early);
  const at = await untilReached(req.minVersion, () => servable(deps, caller.tenantId, caller.agentId, caller.keyId, req.minVersion));
  if ("fallback" in at) return fromObject(await viaObject(), at.fallback);
  const shared = await librariesOf(deps, caller, at.reader);
  if ("fallback" in shared) return fromObject(await viaObject(), shared.fallback);
  refuseRevoked(caller.keyId);
  const vec = await embedFor(deps.env, at.reader, caller.tenantId, caller.agentId, req.query);
  if (!vec) return fromObject(await viaObject(), "embedder");
  const now = Date.now();
  const { lambda, candidates, ranked } = await at.reader
    .at(now, { text: req.query, vec }, shared.libraries)
    .rank(req, effectiveFilter(req));
  const items = retrievedItems(ranked);
  // A shared lesson goes by its sharedRef in the token, as in the object's record of a retrieval.
  const shown = items.map(
    (i, n): TokenItem => ({
      id: ranked[n]!.id,
      kind: i.kind,
      score: i.score,
      label: i.label,
      f: ranked[n]!.features,
      ...(i.libraryId ? { libraryId: i.libraryId } : {}),
    }),
  );
  const retrievalId = await sign(at.reader, {
    query: req.query,
    queryVec: vec,
    phase: req.phase ?? null,
    lambda,
    items: shown,
    caller,
    at: now,
  });
  if (!retrievalId) return fromObject(await viaObject(), "token-size");
  return {
    retrievalId,
    phase: req.phase ?? null,
    lambda,
    candidates,
    items,
    libraryVersion: at.libraryVersion,
    snapshotAgeMs: Math.max(0, now - Math.min(at.validatedAt, shared.validatedAt)),
    servedFrom: "edge",
  };
}

/** A prompt block, assembled here from the agent's snapshot when it may be, else by `throughObject`. */
export async function promptNearby(
  deps: Pick<Deps, "env" | "waitUntil">,
  caller: ReadCaller,
  req: PromptRequest & Pick<ReadOptions, "minVersion" | "consistency">,
  throughObject: () => Promise<Omit<PromptResponse, "snapshotAgeMs" | "servedFrom">>,
) {
  refuseRevoked(caller.keyId);
  const viaObject = () => untilReached(req.minVersion, throughObject);
  const early = preflight(req, req.query);
  if (early) return fromObject(await viaObject(), early);
  const at = await untilReached(req.minVersion, () => servable(deps, caller.tenantId, caller.agentId, caller.keyId, req.minVersion));
  if ("fallback" in at) return fromObject(await viaObject(), at.fallback);
  const shared = await librariesOf(deps, caller, at.reader);
  if ("fallback" in shared) return fromObject(await viaObject(), shared.fallback);
  refuseRevoked(caller.keyId);
  let vec: Float32Array | null = null;
  if (req.query) {
    vec = await embedFor(deps.env, at.reader, caller.tenantId, caller.agentId, req.query);
    if (!vec) return fromObject(await viaObject(), "embedder");
  }
  const now = Date.now();
  const reader = at.reader.at(now, vec ? { text: req.query!, vec } : null, shared.libraries);
  const filter: MemoryFilter | undefined = effectiveFilter(req);
  // Outside an episode (the object answers those) a prompt's exploration draws on its own retrieval
  // id, and a read-scoped key's explores nothing, as the object's.
  const id = newRetrievalId();
  const block = await assemblePrompt(reader, req, filter, caller.readOnly ? null : id);
  const { items, trial, ...answer } = block;
  const shown = items.map(
    (i): TokenItem => ({
      id: i.id,
      kind: i.kind,
      score: null,
      label: i.label ?? null,
      ...(i.citeOnly ? { citeOnly: true } : {}),
      ...(i.libraryId ? { libraryId: i.libraryId } : {}),
    }),
  );
  const lambda = reader.lambdaFor(req.phase);
  const retrievalId = await sign(reader, {
    id,
    query: req.query ?? "",
    queryVec: vec,
    phase: req.phase ?? null,
    lambda,
    items: shown,
    caller,
    at: now,
    trial,
  });
  if (!retrievalId) return fromObject(await viaObject(), "token-size");
  return {
    ...answer,
    retrievalId,
    libraryVersion: at.libraryVersion,
    snapshotAgeMs: Math.max(0, now - Math.min(at.validatedAt, shared.validatedAt)),
    servedFrom: "edge" as const,
  };
}
