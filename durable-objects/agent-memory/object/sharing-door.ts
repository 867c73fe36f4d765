import type { MemoryFilter } from "../../../src/core/memory-types";
import type { Subscription } from "../../../src/core/shared-lessons";
import { ReviewDoor } from "./review-door";
import { lessonsForSubscriber, type SharedQuery } from "../sharing/subscriptions";
import { withdrawnSince } from "../library/history";

/**
 * The RPC methods of shared libraries: an agent's subscriptions, and what a library's object
 * serves its subscribers' objects. AgentMemory (durable-objects/agent-memory.ts) inherits them.
 */
export abstract class SharingDoor extends ReviewDoor {
  /** Subscribes the agent to a shared library of its tenant (callers check the library and its pinned version exist), or changes the weight or pin. */
  async subscribe({ subscription }: { subscription: Subscription }) {
    return this.rpc(() => this.rooms.subscriptions.put(subscription));
  }

  /** Ends a subscription and forgets the agent's Q for that library's lessons. */
  async unsubscribe({ libraryId }: { libraryId: string }) {
    return this.rpc(() => ({ removed: this.rooms.subscriptions.remove(libraryId) }));
  }

  async subscriptions() {
    return this.rpc(() => this.rooms.subscriptions.list());
  }

  /**
   * The active lessons of the libraries the agent subscribes to, as its whole-library prompt shows
   * them: a practice run's rollouts draw on them beside the run's own library.
   */
  async subscribedLessons() {
    return this.rpc(async () =>
      (await this.rooms.subscriptions.lessons(undefined, this.rooms.retrieval.onSharedFailure)).map((l) => ({
        id: l.ref,
        libraryId: l.libraryId,
        text: l.text,
      })),
    );
  }

  /** What this agent learned of a library's lessons: its own Q and counters for each it was shown. */
  async sharedStats({ libraryId }: { libraryId: string }) {
    return this.rpc(() => this.rooms.subscriptions.stats(libraryId));
  }

  /** Served by a shared library's object to a subscriber's: its lesson candidates for the subscriber's query. */
  async sharedCandidates({ query, k1, filter }: { query: SharedQuery; k1: number; filter?: MemoryFilter | undefined }) {
    return this.rpc(() => this.rooms.retrieval.forSubscriber(query, k1, filter));
  }

  /** Served by a shared library's object to a subscriber's: its lessons for a whole-library prompt. */
  async sharedLessons({ filter }: { filter?: MemoryFilter | undefined }) {
    return this.rpc(() => lessonsForSubscriber(this.mem, filter));
  }

  /** Served by a shared library's object to a pinned subscriber's: the lessons of version n its reads must leave out now. */
  async sharedWithdrawnSince({ n }: { n: number }) {
    return this.rpc(() => [...withdrawnSince(this.mem.sql, n)]);
  }
}
