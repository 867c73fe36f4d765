import type { Env } from "../../../src/env";
import type { MemoryFilter } from "../../../src/core/memory-types";
import { libraryMemoryId } from "../../../src/core/shared-lessons";
import type { MemoryOutcome } from "../../memory-error";
import type { CandidateInfo } from "../retrieval/retrieval";
import type { LibraryPort, SharedQuery } from "./subscriptions";

/** The RPC methods a library's object serves its subscribers (durable-objects/agent-memory.ts). */
interface LibraryObject {
  sharedCandidates(query: SharedQuery, k1: number, filter: MemoryFilter | undefined): Promise<MemoryOutcome<CandidateInfo[]>>;
  sharedLessons(filter: MemoryFilter | undefined): Promise<MemoryOutcome<{ id: string; text: string }[]>>;
}

/** A library's answer; null when the library no longer exists, its other errors thrown. */
function valueOf<T>(o: MemoryOutcome<T>): T | null {
  if (o.ok) return o.value;
  if (o.error.kind === "not-found") return null;
  throw new Error(`shared library: ${o.error.kind}: ${o.error.detail}`);
}

/** The libraries of the agent's own tenant, each reached at its object `${tenantId}:library:${libraryId}`. */
export function libraryPort(env: Env, tenantId: () => string): LibraryPort<CandidateInfo> {
  const library = (libraryId: string) => env.AGENT_MEMORY.getByName(`${tenantId()}:${libraryMemoryId(libraryId)}`) as unknown as LibraryObject;
  return {
    candidates: async (libraryId, query, k1, filter) => valueOf(await library(libraryId).sharedCandidates(query, k1, filter)),
    lessons: async (libraryId, filter) => valueOf(await library(libraryId).sharedLessons(filter)),
  };
}
