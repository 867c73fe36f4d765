import { variableProblems, variables } from "../config";
import { createEmbedder, DEFAULT_OPENAI_EMBEDDING_MODEL, EmbedderConfigError } from "./embedder-factory";
import { KNOWN_DIMS as OPENAI_DIMS } from "./embedders/openai";
import { KNOWN_DIMS as WORKERS_AI_DIMS, WORKERS_AI_DEFAULT_MODEL } from "./embedders/workers-ai";

/**
 * The size of the vectors the deployment's default embedder (EMBEDDER, EMBEDDING_MODEL,
 * EMBEDDING_DIMS) writes, known before the Worker runs: the Vectorize index is created at this size
 * (`npm run provision`). The offline embedders are asked themselves; a model behind an endpoint is
 * looked up in its adapter's table of native sizes, unless EMBEDDING_DIMS names the size. Throws
 * an EmbedderConfigError when only the endpoint could tell.
 */
export function configuredDimensions(env: object): number {
  const [problem] = variableProblems(env, ["EMBEDDING_DIMS"]);
  if (problem) throw new EmbedderConfigError(problem, ["EMBEDDING_DIMS"]);
  const vars = variables(env);
  const table =
    vars.EMBEDDER === "openai"
      ? { dims: OPENAI_DIMS, model: vars.EMBEDDING_MODEL ?? DEFAULT_OPENAI_EMBEDDING_MODEL }
      : vars.EMBEDDER === "workers-ai"
        ? { dims: WORKERS_AI_DIMS, model: vars.EMBEDDING_MODEL ?? WORKERS_AI_DEFAULT_MODEL }
        : undefined;
  if (!table) return createEmbedder(env as Parameters<typeof createEmbedder>[0]).dims;
  const dims = vars.EMBEDDING_DIMS ?? table.dims[table.model];
  if (dims === undefined) {
    throw new EmbedderConfigError(
      `the size of ${vars.EMBEDDER} model "${table.model}"'s vectors is not known before its first call; set EMBEDDING_DIMS`,
      ["EMBEDDING_DIMS"],
    );
  }
  return dims;
}
