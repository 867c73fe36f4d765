import { describeReranker } from "../../../src/core/reranker";
import type { Retrieval } from "./retrieval";

/** The body of GET /v1/agents/:agentId/retriever. */
export function retrieverState(retrieval: Pick<Retrieval, "usage" | "reranker">) {
  const { libraryVersion, state } = retrieval.reranker.current();
  return { libraryVersion, reranker: describeReranker(state), usage: retrieval.usage.summary() };
}

/** Clears the re-ranker (for the current library version; earlier versions keep theirs for rollback) and all usage memory. */
export function resetRetriever(retrieval: Pick<Retrieval, "usage" | "reranker">, transaction: <T>(fn: () => T) => T) {
  try {
    return transaction(() => {
      retrieval.reranker.reset();
      retrieval.usage.clear();
      return retrieverState(retrieval);
    });
  } catch (err) {
    retrieval.reranker.forgetCache();
    retrieval.usage.forgetCache();
    throw err;
  }
}
