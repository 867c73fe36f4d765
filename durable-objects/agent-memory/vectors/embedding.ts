import type { Embedder } from "../../../src/adapters/embedder";
import { EmbedderDimsError } from "../../../src/adapters/embedders/shared";
import { budgetExceeded, DomainError } from "../../../src/core/errors";
import { BudgetExceededError } from "../../../src/llm/errors";

/** The embedder could not be built from the configuration; `settings` names what to change. */
export interface EmbedderUnavailable {
  message: string;
  settings: readonly string[];
}

/** The settings that declare a vector size: the deployment's and the agent's own. */
const DIMS_SETTINGS = ["EMBEDDING_DIMS", "embedder.dims"];

export function unavailable(source: Embedder | EmbedderUnavailable): DomainError {
  const u = source as EmbedderUnavailable;
  return DomainError.embedderNotConfigured(`The embedder is not configured: ${u.message}`, u.settings);
}

/**
 * Embeds `texts` (at least one) with the active model; configuration problems become a 503 that
 * names the setting. `size` is the size the agent's vectors of the model have (0 while unknown).
 */
export async function embedChecked(source: Embedder | EmbedderUnavailable, texts: string[], size: number): Promise<Float32Array[]> {
  if (!("embed" in source)) throw unavailable(source);
  let out: Float32Array[];
  try {
    out = await source.embed(texts);
  } catch (err) {
    if (err instanceof EmbedderDimsError)
      throw DomainError.embedderNotConfigured(
        `${err.message}. Set EMBEDDING_DIMS or the agent's embedder.dims to the size the model returns.`,
        DIMS_SETTINGS,
      );
    if (err instanceof BudgetExceededError)
      throw budgetExceeded(`Embedding needs tokens: ${err.message}`, { budget: err.budget, used: err.used, resetsAt: err.resetsAt });
    throw err;
  }
  const got = out[0]!.length;
  if (size !== 0 && got !== size) {
    throw DomainError.embedderNotConfigured(
      `The embedder (${source.model}) now returns ${got}-dimensional vectors, but this agent's vectors of that model have ${size}: the endpoint serves another model. Set EMBEDDING_DIMS or the agent's embedder.dims to ${got} to re-embed.`,
      DIMS_SETTINGS,
    );
  }
  return out;
}
