/**
 * Shared libraries: an agent draws on its own lessons and on the active lessons of the
 * libraries it subscribes to, and learns for itself which shared lessons work for it. This module is
 * the one merge of the two, over plain data, so the agent's object (asking each library's object
 * for its candidates) and an edge read (ranking a library's published snapshot beside the agent's
 * own) put them together the same way.
 */
import { z } from "zod";

/** A library's lessons count, in an agent's ranking, as much as its own (1) or less. */
export const SubscriptionWeightSchema = z.number().min(0.05).max(1);

export const LIBRARY_ID_RE = /^lib_[A-Za-z0-9_-]{1,60}$/;
export const LibraryIdSchema = z.string().regex(LIBRARY_ID_RE, "A library id is `lib_` followed by 1-60 letters, digits, '_' or '-'");

/** A shared library as both doors show it (REST's SharedLibrary, MCP's list_libraries items). */
export const SharedLibrarySchema = z.object({
  libraryId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  createdAt: z.number().int().describe("Unix epoch milliseconds"),
  updatedAt: z.number().int().describe("Unix epoch milliseconds"),
  subscribers: z.number().int().optional().describe("How many agents subscribe to it"),
  libraryVersion: z.number().int().optional().describe("The library's current version (its lessons' history, as an agent's)"),
});

/**
 * A subscription follows the library's latest version, or is pinned to one: the agent then draws on
 * the library as it stood after that version (its own Q still learned on top), until it is moved.
 */
export const PinVersionSchema = z.number().int().min(1);

export interface Subscription {
  libraryId: string;
  weight: number;
  /** null: the library's latest version. */
  pinVersion: number | null;
}

/** What one agent learned about one shared lesson: its own Q and counters, never the library's. */
export interface SharedLessonState {
  q: number;
  retrieved: number;
  successes: number;
  failures: number;
  lastUsedAt: number | null;
}

/**
 * The key a shared lesson goes by in an agent's ranking and retrieval records: a library may hold
 * a lesson under the same id as one of the agent's own (an import keeps ids), so the id alone is not enough.
 */
export const sharedRef = (libraryId: string, lessonId: string) => `${libraryId}/${lessonId}`;

/** The library and lesson a sharedRef names, or null for an agent's own id (which holds no '/'). */
export function parseSharedRef(ref: string): { libraryId: string; lessonId: string } | null {
  const at = ref.indexOf("/");
  if (at < 0 || !LIBRARY_ID_RE.test(ref.slice(0, at))) return null;
  return { libraryId: ref.slice(0, at), lessonId: ref.slice(at + 1) };
}

/** What merging reads and sets on a candidate; everything else a candidate carries passes through. */
export interface MergeableCandidate {
  id: string;
  /** The fused relevance of phase A within the candidate's own library, in [0, 1]. */
  relevance: number;
  q: number;
  lastUsedAt: number | null;
  label: string | null;
}

export type Merged<C extends MergeableCandidate> = C & { shared?: { libraryId: string; id: string } };

/**
 * The agent's own candidates and each subscribed library's, as one set for phase B.
 *
 * Each library's relevance was fused by rank within that library, as the agent's own was, so the
 * sets are joined as federated reciprocal-rank results are: side by side, a library's scaled by the
 * subscription's weight. A shared lesson then ranks on the agent's own Q for it (the default Q
 * until this agent's rewards move it) and on the agent's own last use, never on what other
 * subscribers taught: what helps one agent may not help another. Labels are the library's own
 * `G#`, which would collide with the agent's, so a shared lesson carries none (it is cited by id).
 * Without subscriptions the agent's candidates come back as they were.
 */
export function mergeShared<C extends MergeableCandidate>(
  own: readonly C[],
  libraries: readonly { libraryId: string; weight: number; candidates: readonly C[] }[],
  perAgent: (libraryId: string, lessonId: string) => Pick<SharedLessonState, "q" | "lastUsedAt"> | undefined,
  defaultQ: number,
): Merged<C>[] {
  const out: Merged<C>[] = [...own];
  for (const lib of libraries) {
    for (const c of lib.candidates) {
      const mine = perAgent(lib.libraryId, c.id);
      out.push({
        ...c,
        id: sharedRef(lib.libraryId, c.id),
        relevance: c.relevance * lib.weight,
        q: mine?.q ?? defaultQ,
        lastUsedAt: mine?.lastUsedAt ?? null,
        label: null,
        shared: { libraryId: lib.libraryId, id: c.id },
      });
    }
  }
  return out;
}

/** One subscriber's figures for the lessons of a library, as the library's owners see them. */
export interface SubscriberLessonStats {
  agentId: string;
  lessons: ({ id: string } & SharedLessonState)[];
}

/** Per lesson, across subscribers: how it fares where it is used. Lessons no subscriber used yet are left out. */
export function aggregateSubscribers(subscribers: readonly SubscriberLessonStats[]) {
  const byLesson = new Map<string, { id: string; agents: number; meanQ: number; uses: number; successes: number; failures: number }>();
  for (const s of subscribers) {
    for (const l of s.lessons) {
      const a = byLesson.get(l.id) ?? { id: l.id, agents: 0, meanQ: 0, uses: 0, successes: 0, failures: 0 };
      a.meanQ = (a.meanQ * a.agents + l.q) / (a.agents + 1);
      a.agents++;
      a.uses += l.retrieved;
      a.successes += l.successes;
      a.failures += l.failures;
      byLesson.set(l.id, a);
    }
  }
  return [...byLesson.values()].sort((a, b) => b.uses - a.uses || (a.id < b.id ? -1 : 1));
}

/**
 * A library's lessons live in an AgentMemory object of their own, addressed like an agent's with
 * this id in place of the agent's (agent ids cannot hold ':', so the two never meet).
 */
export const libraryMemoryId = (libraryId: string) => `library:${libraryId}`;

/**
 * A pinned version's frozen copy: the library's active lessons after that version, in an object of
 * their own (same lesson ids), which pinned subscribers rank like the library itself. One copy per
 * pinned version, however many subscribers pin it.
 */
export const pinnedMemoryId = (libraryId: string, version: number) => `library:${libraryId}@${version}`;
