import type { Env } from "../../../src/env";
import type { MemoryFilter } from "../../../src/core/memory-types";
import { libraryMemoryId, pinnedMemoryId, type Subscription } from "../../../src/core/shared-lessons";
import type { Outcome } from "../../../src/core/errors";
import type { CandidateInfo } from "../../../src/core/ranking/candidates";
import type { LibraryPort, SharedQuery } from "./subscriptions";

/** The RPC methods a library's object serves its subscribers (durable-objects/agent-memory.ts). */
interface LibraryObject {
  sharedCandidates(req: { query: SharedQuery; k1: number; filter: MemoryFilter | undefined }): Promise<Outcome<CandidateInfo[]>>;
  sharedLessons(req: { filter: MemoryFilter | undefined }): Promise<Outcome<{ id: string; text: string }[]>>;
  sharedWithdrawnSince(req: { n: number }): Promise<Outcome<string[]>>;
  incarnation(): Promise<Outcome<unknown>>;
}

/** A library's answer; null when the library no longer exists, its other errors thrown. */
function valueOf<T>(o: Outcome<T>): T | null {
  if (o.ok) return o.value;
  if (o.error.kind === "not-found") return null;
  throw new Error(`shared library: ${o.error.kind}: ${o.error.detail}`);
}

/**
 * The libraries of the agent's own tenant, each reached at its object `${tenantId}:library:${libraryId}`.
 * A pinned subscription reads the version's frozen copy and, in parallel, asks the library which of
 * that version's lessons it withdrew since (quarantined later, held now, removed from quarantine,
 * deleted or archived): those leave pinned reads as they leave the others. The library's answer
 * also tells that it still exists.
 */
export function libraryPort(env: Env, tenantId: () => string): LibraryPort<CandidateInfo> {
  const object = (memoryId: string) => env.AGENT_MEMORY.getByName(`${tenantId()}:${memoryId}`) as unknown as LibraryObject;
  async function read<T extends { id: string }>(sub: Subscription, call: (o: LibraryObject) => Promise<Outcome<T[]>>): Promise<T[] | null> {
    const library = object(libraryMemoryId(sub.libraryId));
    if (sub.pinVersion === null) return valueOf(await call(library));
    const [withdrawn, pinned] = await Promise.all([
      library.sharedWithdrawnSince({ n: sub.pinVersion }).then(valueOf),
      call(object(pinnedMemoryId(sub.libraryId, sub.pinVersion))),
    ]);
    if (withdrawn === null) return null;
    if (!pinned.ok)
      throw new Error(`shared library ${sub.libraryId} at version ${sub.pinVersion}: ${pinned.error.kind}: ${pinned.error.detail}`);
    const out = new Set(withdrawn);
    return pinned.value.filter((c) => !out.has(c.id));
  }
  return {
    candidates: (sub, query, k1, filter) => read(sub, (o) => o.sharedCandidates({ query, k1, filter })),
    lessons: (sub, filter) => read(sub, (o) => o.sharedLessons({ filter })),
    // The cheapest call a library's object answers: a deleted one answers none.
    exists: async (libraryId) => valueOf(await object(libraryMemoryId(libraryId)).incarnation()) !== null,
  };
}
