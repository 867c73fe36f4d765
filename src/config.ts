import { z } from "zod";
import { DEFAULT_LOCAL_INDEX_LIMIT, VECTOR_INDEX_SETTINGS } from "./core/vector-index-choice";

/**
 * The deployment's variables (wrangler.toml [vars] and secrets), declared once and parsed with zod
 * once per environment object: the runtime hands every request of an isolate the same `env`, so
 * the parse runs once per isolate. A variable left blank counts as unset.
 *
 * Each section answers for a bad value in its own way, naming the variable and what it must be:
 *   deployment  the Worker refuses every request (503 `service-unavailable`) until it is fixed;
 *   llm         the calls that need a model answer 503 `llm-not-configured`;
 *   embedder    an agent that embeds answers 503 `embedder-not-configured`, the rest keeps working.
 * An invalid value reads as its default, so what runs beside the refusal (queued jobs, an object's
 * alarm) never sees it.
 */

/** wrangler.toml may give a number or a boolean (a JSON variable): it reads as the text it would be in .dev.vars. */
function setValue(v: unknown): unknown {
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (typeof v !== "string") return v ?? undefined;
  return v.trim() === "" ? undefined : v.trim();
}
const optional = <T extends z.ZodType>(schema: T) => z.preprocess(setValue, schema.optional());
const withDefault = <T extends z.ZodType>(schema: T, fallback: z.output<T>) =>
  z.preprocess(setValue, schema.optional()).transform((v) => (v === undefined ? fallback : (v as z.output<T>)));

const whole = (min: number, max: number) => {
  const error = `must be a whole number from ${min} to ${max}`;
  return z.string().regex(/^\d+$/, error).transform(Number).pipe(z.number().int().min(min, error).max(max, error));
};
const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of ${values.join(", ")}` });

export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export const STRUCTURED_OUTPUT_MODES = ["json_schema", "json_object", "prompt"] as const;
/** `filter`: the filter, then the LLM review when there is one; `review`: a client key's text also waits for an admin. */
export const ADMISSION_MODES = ["filter", "review"] as const;

const PriceSchema = z
  .object({
    input: z.number().nonnegative().describe("USD per 1M input tokens"),
    output: z.number().nonnegative().describe("USD per 1M output tokens"),
  })
  .strict();
const PRICE_TABLE_SHAPE = '{"<model>": {"input": <USD per 1M tokens>, "output": <USD per 1M tokens>}}';
const priceTable = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch (e) {
      ctx.addIssue({
        code: "custom",
        message: `is not valid JSON (${e instanceof Error ? e.message : String(e)}); expected ${PRICE_TABLE_SHAPE}`,
      });
      return z.NEVER;
    }
  })
  .pipe(z.record(z.string().min(1), PriceSchema));

const deployment = {
  PRAXIS_ADMIN_KEY: optional(z.string()),
  /** `development` (wrangler dev) or `test` loosen the webhook URL rules; anything else, or unset, means production (core/webhook-url). */
  PRAXIS_ENV: optional(z.string()),
  LOG_LEVEL: withDefault(oneOf(LOG_LEVELS), "info"),
  MAX_BODY_BYTES: withDefault(whole(1, 2 ** 31 - 1), 1_048_576),
  /**
   * `review` holds every served text a non-admin key writes `pending` until an admin releases it
   * (for deployments without an LLM reviewer: no filter can judge plainly worded advice).
   */
  ADMISSION_MODE: withDefault(oneOf(ADMISSION_MODES), "filter"),
  /** Open episodes older than this are ended as `timeout` by the agent's sweep. */
  EPISODE_TTL_MINUTES: withDefault(whole(1, 525_600), 60),
  VECTOR_INDEX: withDefault(oneOf(VECTOR_INDEX_SETTINGS), "local"),
  LOCAL_INDEX_LIMIT: withDefault(whole(1, 100_000_000), DEFAULT_LOCAL_INDEX_LIMIT),
  /** Practice runs of one tenant running at once; the others wait as `queued`. */
  PRACTICE_MAX_RUNS_PER_TENANT: withDefault(whole(1, 10_000), 4),
  /** Evaluations of one tenant queued or running at once. */
  EVALUATION_MAX_PER_TENANT: withDefault(whole(1, 10_000), 8),
  /** Edge reads (platform/edge): how old, in ms, a snapshot may be when it serves a read. */
  READ_STALENESS_MS: withDefault(whole(0, 3_600_000), 2_000),
  /**
   * Edge reads: the largest snapshot a Worker takes, in bytes it holds decoded (decodedBytes); a
   * larger agent is read through its object. 72 MiB admits 100,000 memories with 100-dimension vectors.
   */
  READ_SNAPSHOT_MAX_BYTES: withDefault(whole(0, 2 ** 31 - 1), 72 * 1024 * 1024),
  /**
   * Edge reads: bytes of decoded snapshots one isolate keeps, least recently used evicted first.
   * With one snapshot decoding (its published bytes beside), under the isolate's 128 MB.
   */
  READ_CACHE_BYTES: withDefault(whole(0, 2 ** 31 - 1), 72 * 1024 * 1024),
  /**
   * Edge reads: a snapshot travels from its object in parts of at most this many bytes, since one
   * RPC message is limited to 32 MiB (a 100,000-memory snapshot publishes about 48 MiB).
   */
  READ_SNAPSHOT_PART_BYTES: withDefault(whole(1024, 24 * 1024 * 1024), 16 * 1024 * 1024),
  /** Milliseconds a Worker holds token retrievals' use counters before applying them (platform/edge/retrieval-counters.ts). */
  RETRIEVAL_COUNTS_FLUSH_MS: withDefault(whole(0, 600_000), 2_000),
};

const llm = {
  LLM_BASE_URL: optional(z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).transform((u) => u.replace(/\/+$/, ""))),
  LLM_API_KEY: optional(z.string()),
  LLM_MODEL: optional(z.string()),
  LLM_MODEL_POLICY: optional(z.string()),
  LLM_MODEL_JUDGE: optional(z.string()),
  LLM_MODEL_SUMMARIZER: optional(z.string()),
  LLM_MODEL_LEARNER: optional(z.string()),
  LLM_TIMEOUT_MS: withDefault(whole(1, 900_000), 60_000),
  LLM_MAX_CONCURRENCY: withDefault(whole(1, 256), 4),
  LLM_MAX_RETRIES: withDefault(whole(0, 10), 3),
  LLM_STRUCTURED_OUTPUT: withDefault(oneOf(STRUCTURED_OUTPUT_MODES), "json_schema"),
  LLM_PRICES: withDefault(priceTable, {}),
  /** Tokens a tenant may spend a day unless it has its own budget; unset or 0: unlimited. */
  DAILY_TOKEN_BUDGET: withDefault(whole(0, Number.MAX_SAFE_INTEGER), 0),
};

const embedder = {
  EMBEDDER: withDefault(z.string(), "semantic"),
  EMBEDDING_MODEL: optional(z.string()),
  EMBEDDING_DIMS: optional(whole(8, 4096)),
  EMBEDDING_BASE_URL: optional(z.string()),
  EMBEDDING_API_KEY: optional(z.string()),
};

/** The variables of each section (see the top of this file). */
export const DEPLOYMENT_VARIABLES = Object.keys(deployment) as (keyof typeof deployment)[];
export const LLM_VARIABLES = Object.keys(llm) as (keyof typeof llm)[];
export const EMBEDDER_VARIABLES = Object.keys(embedder) as (keyof typeof embedder)[];

const VARIABLES = { ...deployment, ...llm, ...embedder };
export type Variable = keyof typeof VARIABLES;
export type Variables = { [K in Variable]: z.output<(typeof VARIABLES)[K]> };

/** The variables set as secrets (`wrangler secret put`, `npm run provision`), never in wrangler.toml. */
export const SECRET_VARIABLES: readonly Variable[] = ["PRAXIS_ADMIN_KEY", "LLM_API_KEY", "EMBEDDING_API_KEY"];
const SECRETS = new Set<Variable>(SECRET_VARIABLES);

/** What a value that cannot be read says: the variable, why, and what was given (never for secrets). */
function describe(name: Variable, raw: unknown, issues: readonly z.core.$ZodIssue[]): string {
  const nested = issues.filter((i) => i.path.length > 0);
  if (nested.length) return nested.map((i) => `${[name, ...i.path.map(String)].join(".")}: ${i.message}`).join(", ");
  const got = SECRETS.has(name) ? "" : ` (got ${JSON.stringify(String(raw).trim())})`;
  return `${name} ${[...new Set(issues.map((i) => i.message))].join(", ")}${got}`;
}

interface Parsed {
  values: Variables;
  problems: Map<Variable, string>;
}

const parsed = new WeakMap<object, Parsed>();

function parse(env: object): Parsed {
  const values: Record<string, unknown> = {};
  const problems = new Map<Variable, string>();
  const raw = env as Record<string, unknown>;
  // Each variable on its own, so one bad value neither hides another's problem nor its value.
  for (const [name, schema] of Object.entries(VARIABLES) as [Variable, z.ZodType][]) {
    const r = schema.safeParse(raw[name]);
    if (r.success) values[name] = r.data;
    else {
      problems.set(name, describe(name, raw[name], r.error.issues));
      values[name] = schema.parse(undefined);
    }
  }
  return { values: values as Variables, problems };
}

function parsedOf(env: object): Parsed {
  let p = parsed.get(env);
  if (!p) parsed.set(env, (p = parse(env)));
  return p;
}

/** The deployment's variables of `env`, parsed; an invalid one reads as its default (see variableProblems). */
export function variables(env: object): Variables {
  return parsedOf(env).values;
}

/** One message for each of `names` that is invalid, naming it and saying what it must be. */
export function variableProblems(env: object, names: readonly Variable[]): string[] {
  const { problems } = parsedOf(env);
  return names.flatMap((name) => problems.get(name) ?? []);
}

/**
 * An environment made from `env` for the same deployment (the same variables, some bindings
 * wrapped): it shares `env`'s parse instead of parsing again.
 */
export function derivedEnv<E extends object>(env: object, derived: E): E {
  parsed.set(derived, parsedOf(env));
  return derived;
}
