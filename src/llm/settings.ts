import type { Env } from "../env";
import { DomainError } from "../core/errors";
import { LLM_VARIABLES, STRUCTURED_OUTPUT_MODES, variableProblems, variables, type Variables } from "../config";

/** What each LLM call is for; every role may use its own model. */
export const LLM_ROLES = ["policy", "judge", "summarizer", "learner"] as const;
export type LlmRole = (typeof LLM_ROLES)[number];

export { STRUCTURED_OUTPUT_MODES };
export type StructuredOutputMode = (typeof STRUCTURED_OUTPUT_MODES)[number];

/** The variables an operator sets to enable the LLM; named in the 503 `llm-not-configured` problem. */
export const LLM_ENV_VARS = {
  required: ["LLM_BASE_URL", "LLM_MODEL"],
  optional: [
    "LLM_API_KEY",
    "LLM_MODEL_POLICY",
    "LLM_MODEL_JUDGE",
    "LLM_MODEL_SUMMARIZER",
    "LLM_MODEL_LEARNER",
    "LLM_TIMEOUT_MS",
    "LLM_MAX_CONCURRENCY",
    "LLM_MAX_RETRIES",
    "LLM_STRUCTURED_OUTPUT",
    "LLM_PRICES",
    "DAILY_TOKEN_BUDGET",
  ],
} as const;

/** Local servers (Ollama, vLLM) ignore the key, but the `openai` client insists on one. */
export const PLACEHOLDER_API_KEY = "not-needed";

export type ModelPrice = Variables["LLM_PRICES"][string];

export interface LlmSettings {
  baseUrl: string;
  apiKey: string;
  model: string;
  roleModels: Record<LlmRole, string>;
  timeoutMs: number;
  maxConcurrency: number;
  maxRetries: number;
  structuredOutput: StructuredOutputMode;
  prices: Record<string, ModelPrice>;
}

/** The variables an LLM needs: what a client reads from an `llm-not-configured` answer. */
export const llmVariables = () => ({ required: [...LLM_ENV_VARS.required], optional: [...LLM_ENV_VARS.optional] });

/** Raised when the LLM variables are present but invalid; the message names every bad variable. */
export class LlmSettingsError extends DomainError {
  override name = "LlmSettingsError";
  constructor(readonly problems: string[]) {
    super("llm-not-configured", `The LLM configuration is invalid: ${problems.join("; ")}. Fix these variables and redeploy.`, {
      data: { variables: llmVariables(), problems },
    });
  }
}

type LlmEnv = Partial<Pick<Env, (typeof LLM_VARIABLES)[number]>>;

const present = (v: string | undefined): boolean => v !== undefined && v.trim() !== "";

/** True when the two required variables are set (the values may still be invalid; loading says why). */
export function llmVariablesPresent(env: LlmEnv): boolean {
  return present(env.LLM_BASE_URL) && present(env.LLM_MODEL);
}

/**
 * The LLM settings of the environment (src/config.ts parses them). Returns null when no LLM is
 * configured (LLM_BASE_URL or LLM_MODEL missing) and throws LlmSettingsError when something is set
 * but invalid.
 */
export function loadLlmSettings(env: LlmEnv): LlmSettings | null {
  if (!llmVariablesPresent(env)) return null;
  const problems = variableProblems(env, LLM_VARIABLES);
  if (problems.length > 0) throw new LlmSettingsError(problems);
  const v = variables(env);
  const model = v.LLM_MODEL!;
  return {
    baseUrl: v.LLM_BASE_URL!,
    apiKey: v.LLM_API_KEY ?? PLACEHOLDER_API_KEY,
    model,
    roleModels: {
      policy: v.LLM_MODEL_POLICY ?? model,
      judge: v.LLM_MODEL_JUDGE ?? model,
      summarizer: v.LLM_MODEL_SUMMARIZER ?? model,
      learner: v.LLM_MODEL_LEARNER ?? model,
    },
    timeoutMs: v.LLM_TIMEOUT_MS,
    maxConcurrency: v.LLM_MAX_CONCURRENCY,
    maxRetries: v.LLM_MAX_RETRIES,
    structuredOutput: v.LLM_STRUCTURED_OUTPUT,
    prices: v.LLM_PRICES,
  };
}

export function modelFor(settings: LlmSettings, role: LlmRole): string {
  return settings.roleModels[role];
}

/** Estimated cost in USD; 0 when the price table does not list the model. */
export function costUsd(settings: Pick<LlmSettings, "prices">, model: string, tokensIn: number, tokensOut: number): number {
  const price = settings.prices[model];
  if (!price) return 0;
  return (tokensIn * price.input + tokensOut * price.output) / 1_000_000;
}
