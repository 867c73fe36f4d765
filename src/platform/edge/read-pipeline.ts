import type { Env } from "../../env";
import type { Deps } from "../deps";
import type { MemoryFilter } from "../../core/memory-types";
import type { ReadFallback, RetrieveAnswer, RetrieveRequest, RetrieveResponse } from "../../core/retrieval-types";
import { lexicallyServable, type SnapshotReader } from "../../core/ranking/snapshot-source";
import { retrievedItems } from "../../core/ranking/rank";
import { assemblePrompt, type PromptRequest, type PromptResponse } from "../../core/ranking/prompt";
import { effectiveFilter } from "../../core/ranking/filter";
import { issueToken, newRetrievalId, tokenItem, type TokenItem } from "../../core/retrieval-token";
import type { Exploration } from "../../core/probation";
import { createEmbedder } from "../../adapters/embedder-factory";
import { meteredEmbedder } from "../../llm";
import { resilientMemory } from "../objects/agent-access";
import { librariesOf, type ReadCaller, refuseRevoked, servable, untilReached } from "./revalidation";

export { forgetReadModels, type ReadCaller } from "./revalidation";
export { forgetDeleted, readModelsHeld, readSettings } from "./snapshot-cache";

/**
 * Reads served where the request lands. Each isolate keeps snapshots of the agents it reads for
 * (the agent's object publishes a base and deltas, see durable-objects/agent-memory/retrieval/
 * read-model.ts; snapshot-cache.ts keeps them) and ranks retrievals and prompt blocks from them
 * with the object's own code (src/core/ranking). The consistency model (README, "Reads at the edge"):
 *
 * - A snapshot serves while the object confirmed it current at most the staleness bound ago
 *   (READ_STALENESS_MS, 2 s by default). Past half the bound the next read asks the object again in
 *   the background (`waitUntil`), so steady traffic never waits; past the bound a read waits for
 *   the answer (revalidation.ts). The object answers "current", or deltas: of content (items
 *   added, changed, removed, held, and the lexical counts they moved) and of what rewards and uses
 *   changed; a Worker holding nothing, or too old a version, gets a base snapshot and the deltas
 *   since. So quarantines, deletions and new lessons reach these reads within the bound, as do
 *   deletions of the agent (the object answers not-found) and revocations of the keys that read
 *   (checked in D1 at each revalidation).
 * - `minVersion` (read-your-writes) waits for a snapshot of at least that library version, and for
 *   the version itself up to MIN_VERSION_WAIT_MS (then 409 version-not-reached).
 * - Agents that subscribe to shared libraries are served here too: each library's own snapshot is
 *   ranked beside the agent's.
 * - `consistency: "strong"`, reads that join an episode (the object keeps their record, and checks
 *   the episode is open, at the moment of the read), query words FTS5 tokenizes in ways this does
 *   not reproduce, agents whose snapshot is too large or searched remotely or that pin a library to
 *   a version, and subscribed libraries this Worker cannot rank from are answered by the object,
 *   with `fallbackReason` saying why.
 *
 * A read is ranked once: here, or by the object when it must answer. A read ranked here whose
 * token would be too long is recorded by the object as ranked, and answers its `ret_…` id.
 */

export interface ReadOptions {
  minVersion?: number | undefined;
  consistency?: "bounded" | "strong" | undefined;
  episodeId?: string | undefined;
}

type ReadDeps = Pick<Deps, "env" | "waitUntil">;

/** Why the object must answer before any snapshot is looked at, if it must. */
function preflight(opts: ReadOptions, query: string | undefined): ReadFallback | null {
  if (opts.consistency === "strong") return "strong";
  if (opts.episodeId) return "episode";
  if (query !== undefined && !lexicallyServable(query)) return "query-words";
  return null;
}

/** The query embedded as the snapshot's embedder does, or null when this Worker cannot (the object then answers). */
async function embedFor(env: Env, reader: SnapshotReader, caller: ReadCaller, text: string): Promise<Float32Array | null> {
  try {
    const embedder = meteredEmbedder(
      createEmbedder(env, reader.snapshot.config.embedder ?? undefined),
      env,
      caller.tenantId,
      caller.agentId,
    );
    if (embedder.model !== reader.snapshot.model) return null;
    const [vec] = await embedder.embed([text]);
    return vec && vec.length === reader.snapshot.dims ? vec : null;
  } catch {
    return null;
  }
}

/** What a read ranked here showed: its token's claims but for the caller, the time and the query vector. */
interface Shown {
  id?: string;
  query: string;
  phase: string | null;
  lambda: number;
  items: TokenItem[];
  trial?: Exploration;
}

/** The snapshot, the subscribed libraries' snapshots and the query, ready to rank a read from. */
interface Ready {
  reader: SnapshotReader;
  vec: Float32Array | null;
}

type FromObject<A> = A & { snapshotAgeMs: 0; servedFrom: "object"; fallbackReason: ReadFallback };
type FromEdge<T> = T & { retrievalId: string; libraryVersion: number; snapshotAgeMs: number; servedFrom: "edge" };

/**
 * The one way a read is served: the object's answer when it must answer (and only then does it
 * rank), else ranked here by `rank` and issued a token, or, when the token would be too long,
 * recorded by the object as ranked here.
 */
async function nearby<A extends { libraryVersion: number }, T>(
  deps: ReadDeps,
  caller: ReadCaller,
  req: ReadOptions & { query?: string | undefined },
  throughObject: () => Promise<A>,
  rank: (ready: Ready) => Promise<{ answer: T; shown: Shown }>,
): Promise<FromObject<A> | FromEdge<T>> {
  refuseRevoked(caller.keyId);
  const viaObject = async (fallbackReason: ReadFallback): Promise<FromObject<A>> => ({
    ...(await untilReached(req.minVersion, throughObject)),
    snapshotAgeMs: 0,
    servedFrom: "object",
    fallbackReason,
  });
  const early = preflight(req, req.query);
  if (early) return viaObject(early);
  const at = await untilReached(req.minVersion, () => servable(deps, caller.tenantId, caller.agentId, caller.keyId, req.minVersion));
  if ("fallback" in at) return viaObject(at.fallback);
  const shared = await librariesOf(deps, caller, at.reader);
  if ("fallback" in shared) return viaObject(shared.fallback);
  refuseRevoked(caller.keyId);
  let vec: Float32Array | null = null;
  if (req.query) {
    vec = await embedFor(deps.env, at.reader, caller, req.query);
    if (!vec) return viaObject("embedder");
  }
  const now = Date.now();
  const reader = at.reader.at(now, vec ? { text: req.query!, vec } : null, shared.libraries);
  const { answer, shown } = await rank({ reader, vec });
  const ranked = {
    id: shown.id ?? newRetrievalId(),
    query: shown.query,
    queryVec: vec,
    phase: shown.phase,
    lambda: shown.lambda,
    items: shown.items,
    asker: { keyId: caller.keyId, readOnly: caller.readOnly },
    trial: shown.trial ?? null,
  };
  const retrievalId =
    (await issueToken(reader.snapshot.signing, { ...ranked, at: now, retentionDays: reader.snapshot.config.retrievalsDays })) ??
    (await resilientMemory(deps.env, caller.tenantId, caller.agentId).recordRetrieval({ retrieval: ranked }));
  return {
    ...answer,
    retrievalId,
    libraryVersion: at.libraryVersion,
    snapshotAgeMs: Math.max(0, now - Math.min(at.validatedAt, shared.validatedAt)),
    servedFrom: "edge",
  };
}

/** A retrieval, ranked here from the agent's snapshot when it may be, else by `throughObject`. */
export async function retrieveNearby(
  deps: ReadDeps,
  caller: ReadCaller,
  req: RetrieveRequest,
  throughObject: () => Promise<RetrieveAnswer>,
): Promise<RetrieveResponse> {
  return nearby(deps, caller, req, throughObject, async ({ reader }) => {
    const { lambda, candidates, ranked } = await reader.rank(req, effectiveFilter(req));
    const items = retrievedItems(ranked);
    // A shared lesson goes by its sharedRef in the token, as in the object's record of a retrieval.
    const shown = items.map((i, n) => tokenItem({ ...i, id: ranked[n]!.id, f: ranked[n]!.features }));
    return {
      answer: { phase: req.phase ?? null, lambda, candidates, items },
      shown: { query: req.query, phase: req.phase ?? null, lambda, items: shown },
    };
  });
}

/** A prompt block, assembled here from the agent's snapshot when it may be, else by `throughObject`. */
export async function promptNearby(
  deps: ReadDeps,
  caller: ReadCaller,
  req: PromptRequest & Pick<ReadOptions, "minVersion" | "consistency">,
  throughObject: () => Promise<Omit<PromptResponse, "snapshotAgeMs" | "servedFrom">>,
) {
  return nearby(deps, caller, req, throughObject, async ({ reader }) => {
    const filter: MemoryFilter | undefined = effectiveFilter(req);
    // Outside an episode (the object answers those) a prompt's exploration draws on its own retrieval
    // id, and a read-scoped key's explores nothing, as the object's.
    const id = newRetrievalId();
    const { items, trial, ...answer } = await assemblePrompt(reader, req, filter, caller.readOnly ? null : id);
    return {
      answer,
      shown: {
        id,
        query: req.query ?? "",
        phase: req.phase ?? null,
        lambda: reader.lambdaFor(req.phase),
        items: items.map(tokenItem),
        trial,
      },
    };
  });
}
