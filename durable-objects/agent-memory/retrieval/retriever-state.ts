import { describeReranker } from "../../../src/core/reranker";
import type { Retrieval } from "./retrieval";
import type { ReadModel } from "./read-model";

/** The body of GET /v1/agents/:agentId/retriever. */
export function retrieverState(retrieval: Pick<Retrieval, "usage" | "reranker">, readModel: Pick<ReadModel, "published">) {
  const { libraryVersion, state } = retrieval.reranker.current();
  return { libraryVersion, reranker: describeReranker(state), usage: retrieval.usage.summary(), snapshot: readModel.published() };
}

/** Clears the re-ranker (for the current library version; earlier versions keep theirs for rollback) and all usage memory. */
export function resetRetriever(
  retrieval: Pick<Retrieval, "usage" | "reranker">,
  readModel: Pick<ReadModel, "published">,
  transaction: <T>(fn: () => T) => T,
) {
  try {
    return transaction(() => {
      retrieval.reranker.reset();
      retrieval.usage.clear();
      return retrieverState(retrieval, readModel);
    });
  } catch (err) {
    retrieval.reranker.forgetCache();
    retrieval.usage.forgetCache();
    throw err;
  }
}
