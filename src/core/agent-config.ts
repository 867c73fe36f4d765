import { z } from "zod";
import { RunOptionsSchema } from "./practice/schedule-types";
import { runOptionUrls, type UrlAt } from "./webhook-url";

const unit = z.number().min(0).max(1);
const signedUnit = z.number().min(-1).max(1);

/**
 * λ (how much learned utility counts against similarity) per phase. Planning leans hardest on what
 * has worked before; observation mostly wants what matches what is in front of the agent.
 */
export const LambdaTableSchema = z.object({
  observation: unit.default(0.2),
  reasoning: unit.default(0.5),
  planning: unit.default(0.7),
  action: unit.default(0.3),
  reflection: unit.default(0.6),
  default: unit.default(0.5),
});

export const RewardMappingSchema = z.object({
  success: signedUnit.default(1),
  failure: signedUnit.default(-1),
  partial: signedUnit.default(0.3),
  timeout: signedUnit.default(-0.5),
});

export const DecayConfigSchema = z.object({
  /** Retention lost per day at Q_norm = 0 and no use. */
  baseDecay: z.number().min(0).max(10).default(0.05),
  /** How much high utility slows forgetting: 1 means a Q of 1 never decays. */
  utilityFactor: unit.default(0.8),
  /** How much each use (retrieval) stretches the half-life. */
  useBoost: z.number().min(0).max(10).default(0.5),
  /** Items whose retention falls below this are archived by the sweep. */
  threshold: unit.default(0.1),
  enabled: z.boolean().default(true),
});

/** Days to keep something; null keeps it for good. */
const days = z.number().int().min(1).max(36_500).nullable();

/**
 * How long the sweep keeps per-agent records. Experiences are never pruned here (decay archives
 * them); what goes is history nobody uses any more. Cases count from their last retrieval or reward,
 * so a case in use stays; cases and ended episodes that an active experience names as its source
 * stay as long as that experience is active.
 */
export const RetentionConfigSchema = z.object({
  /** Cases neither retrieved nor rewarded for this long are deleted, with their vectors. */
  casesDays: days.default(365),
  /** Ended episodes (with their attempts) this long after they ended; open ones end by timeout first. */
  episodesDays: days.default(90),
  /** Retrieval records, which a reward can only reach while they exist. */
  retrievalsDays: days.default(30),
  /** Finished background jobs (done, skipped, failed), counted from their last update. */
  jobsDays: days.default(30),
});

export const EmbedderChoiceSchema = z
  .object({
    provider: z.enum(["hash", "semantic", "openai", "workers-ai"]),
    model: z.string().min(1).max(200).optional(),
    dims: z.number().int().min(8).max(4096).optional(),
  })
  .strict();

/**
 * Remedial practice: when the success rate of the agent's last `windowEpisodes` ended episodes
 * falls below `minSuccessRate`, a run on a dataset mined from the failing episodes, at most once
 * per cooldown. The fields carry no defaults here so that a patch leaves unnamed fields alone.
 */
const remedialFields = {
  enabled: z.boolean(),
  /** The window must be full before the rate counts, so a few early failures never trigger. */
  windowEpisodes: z.number().int().min(10).max(1000),
  minSuccessRate: unit,
  cooldownHours: z.number().min(1).max(8760),
  run: RunOptionsSchema.describe("run options (as for POST …/practice-runs, without datasetId); a patch replaces them whole"),
};

export const RemedialConfigSchema = z.object({
  enabled: remedialFields.enabled.default(false),
  windowEpisodes: remedialFields.windowEpisodes.default(50),
  minSuccessRate: remedialFields.minSuccessRate.default(0.6),
  cooldownHours: remedialFields.cooldownHours.default(24),
  run: remedialFields.run.default(() => RunOptionsSchema.parse({ policy: { kind: "llm" } })),
});
export type RemedialConfig = z.infer<typeof RemedialConfigSchema>;

/** Per-agent tuning; every field has a default (the design's values: retrieval λ by phase, k1/k2, α, decay). */
export const AgentConfigSchema = z
  .object({
    lambda: LambdaTableSchema.default(LambdaTableSchema.parse({})),
    alpha: z.number().gt(0).max(1).default(0.1),
    defaultQ: signedUnit.default(0.5),
    rewardMapping: RewardMappingSchema.default(RewardMappingSchema.parse({})),
    k1: z.number().int().min(1).max(500).default(20),
    k2: z.number().int().min(1).max(100).default(5),
    /** null: the threshold the active embedder declares for its own similarity scale. */
    similarityThreshold: z.number().min(-1).max(1).nullable().default(null),
    capacity: z.number().int().min(1).max(1_000_000).default(5000),
    decay: DecayConfigSchema.default(DecayConfigSchema.parse({})),
    retention: RetentionConfigSchema.default(RetentionConfigSchema.parse({})),
    /** null: the deployment's EMBEDDER. Changing it re-embeds the agent's memories in the background. */
    embedder: EmbedderChoiceSchema.nullable().default(null),
    remedial: RemedialConfigSchema.default(() => RemedialConfigSchema.parse({})),
  })
  .refine((c) => c.k2 <= c.k1, { message: "k2 must not exceed k1", path: ["k2"] });

export type AgentConfig = z.infer<typeof AgentConfigSchema>;

/**
 * A nested table's fields as a patch: optional and WITHOUT their defaults. Zod 4 applies a default
 * even inside `.partial()`, which would reset every field a patch does not name.
 */
function patchOf<S extends z.ZodRawShape>(schema: z.ZodObject<S>) {
  const shape = Object.fromEntries(
    Object.entries(schema.shape).map(([k, v]) => [k, (v instanceof z.ZodDefault ? v.unwrap() : v) as z.ZodType]),
  ) as unknown as { [K in keyof S]: S[K] extends z.ZodDefault<infer T> ? T : S[K] };
  return z.object(shape).partial().strict();
}

/** A PATCH body: any subset of fields, nested objects merged field by field. */
export const AgentConfigPatchSchema = z
  .object({
    lambda: patchOf(LambdaTableSchema),
    alpha: z.number().gt(0).max(1),
    defaultQ: signedUnit,
    rewardMapping: patchOf(RewardMappingSchema),
    k1: z.number().int().min(1).max(500),
    k2: z.number().int().min(1).max(100),
    similarityThreshold: z.number().min(-1).max(1).nullable(),
    capacity: z.number().int().min(1).max(1_000_000),
    decay: patchOf(DecayConfigSchema),
    retention: patchOf(RetentionConfigSchema),
    embedder: EmbedderChoiceSchema.nullable(),
    remedial: z.object(remedialFields).partial().strict(),
  })
  .partial()
  .strict();

export type AgentConfigPatch = z.infer<typeof AgentConfigPatchSchema>;

/** The URLs a patch would have Praxis call (remedial practice's webhook policy and verifier), to check before storing. */
export const configPatchUrls = (patch: AgentConfigPatch): UrlAt[] => runOptionUrls(patch.remedial?.run, "remedial.run");

export const defaultAgentConfig = (): AgentConfig => AgentConfigSchema.parse({});

/** Applies a validated patch; the result is re-validated so cross-field rules (k2 ≤ k1) hold. */
export function applyConfigPatch(current: AgentConfig, patch: AgentConfigPatch) {
  const merged = {
    ...current,
    ...patch,
    lambda: { ...current.lambda, ...patch.lambda },
    rewardMapping: { ...current.rewardMapping, ...patch.rewardMapping },
    decay: { ...current.decay, ...patch.decay },
    retention: { ...current.retention, ...patch.retention },
    remedial: { ...current.remedial, ...patch.remedial },
  };
  return AgentConfigSchema.safeParse(merged);
}
