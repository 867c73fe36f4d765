import { z } from "zod";
import type { Env } from "../env";
import { DomainError } from "../core/errors";

/** What each LLM call is for; every role may use its own model. */
export const LLM_ROLES = ["policy", "judge", "summarizer", "learner"] as const;
export type LlmRole = (typeof LLM_ROLES)[number];

export const STRUCTURED_OUTPUT_MODES = ["json_schema", "json_object", "prompt"] as const;
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

export const DEFAULTS = { timeoutMs: 60_000, maxConcurrency: 4, maxRetries: 3, structuredOutput: "json_schema" } as const;

const PriceSchema = z
  .object({
    input: z.number().nonnegative().describe("USD per 1M input tokens"),
    output: z.number().nonnegative().describe("USD per 1M output tokens"),
  })
  .strict();
export type ModelPrice = z.infer<typeof PriceSchema>;

const intFromEnv = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const SettingsSchema = z.object({
  baseUrl: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }),
  apiKey: z.string().min(1),
  model: z.string().trim().min(1),
  roleModels: z.object({
    policy: z.string().trim().min(1),
    judge: z.string().trim().min(1),
    summarizer: z.string().trim().min(1),
    learner: z.string().trim().min(1),
  }),
  timeoutMs: z.number().int().min(1).max(900_000),
  maxConcurrency: z.number().int().min(1).max(256),
  maxRetries: z.number().int().min(0).max(10),
  structuredOutput: z.enum(STRUCTURED_OUTPUT_MODES),
  prices: z.record(z.string().min(1), PriceSchema),
});
export type LlmSettings = z.infer<typeof SettingsSchema>;

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

type LlmEnv = Pick<
  Env,
  | "LLM_BASE_URL"
  | "LLM_API_KEY"
  | "LLM_MODEL"
  | "LLM_MODEL_POLICY"
  | "LLM_MODEL_JUDGE"
  | "LLM_MODEL_SUMMARIZER"
  | "LLM_MODEL_LEARNER"
  | "LLM_TIMEOUT_MS"
  | "LLM_MAX_CONCURRENCY"
  | "LLM_MAX_RETRIES"
  | "LLM_STRUCTURED_OUTPUT"
  | "LLM_PRICES"
>;

const present = (v: string | undefined): string | undefined => (v && v.trim() !== "" ? v.trim() : undefined);

/** True when the two required variables are set (the values may still be invalid; loading says why). */
export function llmVariablesPresent(env: LlmEnv): boolean {
  return present(env.LLM_BASE_URL) !== undefined && present(env.LLM_MODEL) !== undefined;
}

/**
 * Reads the LLM settings from the environment. Returns null when no LLM is configured (LLM_BASE_URL
 * or LLM_MODEL missing) and throws LlmSettingsError when something is set but invalid.
 */
export function loadLlmSettings(env: LlmEnv): LlmSettings | null {
  const baseUrl = present(env.LLM_BASE_URL);
  const model = present(env.LLM_MODEL);
  if (!baseUrl || !model) return null;

  const problems: string[] = [];
  const int = (name: keyof LlmEnv, fallback: number, min: number, max: number): number => {
    const raw = present(env[name]);
    if (raw === undefined) return fallback;
    const r = intFromEnv(min, max).safeParse(raw);
    if (r.success) return r.data;
    problems.push(`${name} must be a whole number between ${min} and ${max} (got ${JSON.stringify(raw)})`);
    return fallback;
  };

  let prices: Record<string, ModelPrice> = {};
  const rawPrices = present(env.LLM_PRICES);
  if (rawPrices !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawPrices);
    } catch (e) {
      problems.push(
        `LLM_PRICES is not valid JSON (${e instanceof Error ? e.message : String(e)}); expected {"<model>": {"input": <USD per 1M tokens>, "output": <USD per 1M tokens>}}`,
      );
    }
    if (parsed !== undefined) {
      const r = z.record(z.string().min(1), PriceSchema).safeParse(parsed);
      if (r.success) prices = r.data;
      else
        problems.push(
          `LLM_PRICES does not match {"<model>": {"input": number, "output": number}}: ${r.error.issues
            .map((i) => `${["LLM_PRICES", ...i.path.map(String)].join(".")}: ${i.message}`)
            .join(", ")}`,
        );
    }
  }

  const modeRaw = present(env.LLM_STRUCTURED_OUTPUT) ?? DEFAULTS.structuredOutput;
  const candidate = {
    baseUrl: baseUrl.replace(/\/+$/, ""),
    apiKey: present(env.LLM_API_KEY) ?? PLACEHOLDER_API_KEY,
    model,
    roleModels: {
      policy: present(env.LLM_MODEL_POLICY) ?? model,
      judge: present(env.LLM_MODEL_JUDGE) ?? model,
      summarizer: present(env.LLM_MODEL_SUMMARIZER) ?? model,
      learner: present(env.LLM_MODEL_LEARNER) ?? model,
    },
    timeoutMs: int("LLM_TIMEOUT_MS", DEFAULTS.timeoutMs, 1, 900_000),
    maxConcurrency: int("LLM_MAX_CONCURRENCY", DEFAULTS.maxConcurrency, 1, 256),
    maxRetries: int("LLM_MAX_RETRIES", DEFAULTS.maxRetries, 0, 10),
    structuredOutput: modeRaw,
    prices,
  };
  const result = SettingsSchema.safeParse(candidate);
  if (!result.success) {
    for (const issue of result.error.issues) {
      const field = String(issue.path[0] ?? "");
      const variable =
        field === "baseUrl"
          ? "LLM_BASE_URL"
          : field === "structuredOutput"
            ? "LLM_STRUCTURED_OUTPUT"
            : field === "roleModels"
              ? `LLM_MODEL_${String(issue.path[1] ?? "").toUpperCase()}`
              : field;
      const got = field === "structuredOutput" ? ` (got ${JSON.stringify(modeRaw)}; use ${STRUCTURED_OUTPUT_MODES.join(" | ")})` : "";
      problems.push(`${variable}: ${issue.message}${got}`);
    }
  }
  if (problems.length > 0) throw new LlmSettingsError(problems);
  return result.data!;
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
