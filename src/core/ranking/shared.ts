/**
 * Phase A widened by subscribed libraries, where each library's candidates are found from a source
 * of its own (a Worker's snapshot of the library). The agent's object reaches the same result by
 * asking each library's object, which runs findCandidates over its storage, and merging the answers
 * with the same mergeShared (durable-objects/agent-memory/sharing/subscriptions.ts).
 */
import type { MemoryFilter } from "../memory-types";
import { mergeShared, type SharedLessonState } from "../shared-lessons";
import { findCandidates, type CandidateInfo, type CandidateSource } from "./candidates";

export interface LibrarySource {
  libraryId: string;
  weight: number;
  source: CandidateSource;
}

/** The agent's candidates and each library's lesson candidates for the same query, as one set for phase B. */
export async function widenByLibraries(
  own: CandidateInfo[],
  libraries: readonly LibrarySource[],
  at: { query: { text: string; vec: Float32Array }; k1: number; threshold: number; now: number; filter: MemoryFilter | undefined },
  perAgent: (libraryId: string, lessonId: string) => Pick<SharedLessonState, "q" | "lastUsedAt"> | undefined,
  defaultQ: number,
): Promise<CandidateInfo[]> {
  const found = await Promise.all(
    libraries.map(async (l) => ({
      libraryId: l.libraryId,
      weight: l.weight,
      candidates: await findCandidates(l.source, at.query, ["experience"], at.k1, at.threshold, at.now, at.filter),
    })),
  );
  return mergeShared(own, found, perAgent, defaultQ);
}
