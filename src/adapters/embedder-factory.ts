import type { Env } from "../env";
import { variableProblems, variables } from "../config";
import type { Embedder, EmbedderSettings } from "./embedder";
import { HashEmbedder } from "./embedders/hash";
import { SemanticEmbedder } from "./embedders/semantic";
import { OpenAiEmbedder } from "./embedders/openai";
import { WorkersAiEmbedder } from "./embedders/workers-ai";

export const DEFAULT_OPENAI_EMBEDDING_MODEL = "text-embedding-3-small";

const PROVIDERS: readonly EmbedderSettings["provider"][] = ["hash", "semantic", "openai", "workers-ai"];

/**
 * A provider was chosen that this deployment cannot serve; distinct so routes can answer 503 with
 * the fix. `settings` names what to change: variables, or `embedder` for the agent's own settings.
 */
export class EmbedderConfigError extends Error {
  constructor(
    message: string,
    readonly settings: readonly string[],
  ) {
    super(message);
    this.name = "EmbedderConfigError";
  }
}

/**
 * Embedders are stateless apart from a learned dimension, so one instance per configuration is
 * shared across requests in the isolate. Bounded because per-agent overrides make the key space
 * open-ended; Map iteration order makes eviction oldest-first.
 */
const MAX_CACHED = 32;
const cache = new Map<string, Embedder>();
/** Workers AI instances hang off the binding object, so a new binding never reuses a stale one. */
const aiCache = new WeakMap<object, Map<string, Embedder>>();

/** Test hook: forgets every cached instance. */
export function resetEmbedderCache(): void {
  cache.clear();
}

function remember(map: Map<string, Embedder>, key: string, make: () => Embedder): Embedder {
  const hit = map.get(key);
  if (hit) return hit;
  const made = make();
  if (map.size >= MAX_CACHED) map.delete(map.keys().next().value!);
  map.set(key, made);
  return made;
}

/** EMBEDDING_DIMS as a size, or undefined when unset; anything else is a configuration error. */
function envDims(env: Env): number | undefined {
  const [problem] = variableProblems(env, ["EMBEDDING_DIMS"]);
  if (problem) throw new EmbedderConfigError(problem, ["EMBEDDING_DIMS"]);
  return variables(env).EMBEDDING_DIMS;
}

/**
 * Picks the embedder for `override` (an agent's own settings) or else the deployment default.
 * EMBEDDING_MODEL belongs to the provider named by EMBEDDER, so it is not applied when an
 * override switches to another provider, where the name would mean nothing; EMBEDDING_DIMS is
 * the size of EMBEDDING_MODEL's vectors and travels with it.
 */
export function createEmbedder(env: Env, override?: EmbedderSettings): Embedder {
  const vars = variables(env);
  const envProvider = vars.EMBEDDER;
  const provider = override?.provider ?? envProvider;
  const source = override?.provider ? "the agent's embedder settings" : "EMBEDDER";
  const setting = override?.provider ? "embedder" : "EMBEDDER";
  if (!PROVIDERS.includes(provider as EmbedderSettings["provider"])) {
    throw new EmbedderConfigError(`unknown embedder "${provider}" in ${source}; expected one of ${PROVIDERS.join(", ")}`, [setting]);
  }
  const usesEnvModel = provider === envProvider && override?.model === undefined;
  const model = override?.model ?? (usesEnvModel ? vars.EMBEDDING_MODEL : undefined);
  const dims = override?.dims ?? (usesEnvModel ? envDims(env) : undefined);

  switch (provider as EmbedderSettings["provider"]) {
    case "hash":
      return remember(cache, JSON.stringify(["hash", dims]), () => new HashEmbedder({ dims }));

    case "semantic": {
      const semantic = remember(cache, "semantic", () => new SemanticEmbedder());
      if (dims !== undefined && dims !== semantic.dims) {
        throw new EmbedderConfigError(
          `embedder "semantic" (from ${source}) has ${semantic.dims} dimensions, not ${dims}; unset the dims setting`,
          usesEnvModel ? ["EMBEDDING_DIMS"] : [setting],
        );
      }
      return semantic;
    }

    case "openai": {
      const baseURL = vars.EMBEDDING_BASE_URL ?? vars.LLM_BASE_URL;
      const apiKey = vars.EMBEDDING_API_KEY ?? vars.LLM_API_KEY;
      if (!baseURL) {
        throw new EmbedderConfigError(
          `embedder "openai" (from ${source}) needs an endpoint: set EMBEDDING_BASE_URL (or LLM_BASE_URL), e.g. https://api.openai.com/v1`,
          ["EMBEDDING_BASE_URL", "LLM_BASE_URL"],
        );
      }
      if (!apiKey) {
        throw new EmbedderConfigError(
          `embedder "openai" (from ${source}) needs an API key: set the secret EMBEDDING_API_KEY (or LLM_API_KEY); servers without auth accept any placeholder`,
          ["EMBEDDING_API_KEY", "LLM_API_KEY"],
        );
      }
      const name = model ?? DEFAULT_OPENAI_EMBEDDING_MODEL;
      return remember(
        cache,
        JSON.stringify(["openai", baseURL, apiKey, name, dims]),
        () => new OpenAiEmbedder({ baseURL, apiKey, model: name, dims }),
      );
    }

    case "workers-ai": {
      const ai = env.AI;
      if (!ai) {
        throw new EmbedderConfigError(
          `embedder "workers-ai" (from ${source}) needs the Workers AI binding: add [ai] binding = "AI" to wrangler.toml (Workers AI has no local mode; use "semantic" in development)`,
          ["AI", setting],
        );
      }
      let perBinding = aiCache.get(ai);
      if (!perBinding) aiCache.set(ai, (perBinding = new Map()));
      return remember(perBinding, JSON.stringify([model, dims]), () => new WorkersAiEmbedder(ai, { model, dims }));
    }
  }
}
