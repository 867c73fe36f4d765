import { z } from "zod";

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

/** Per-agent tuning; every field has the default from ARCHITECTURE.md. */
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
  })
  .refine((c) => c.k2 <= c.k1, { message: "k2 must not exceed k1", path: ["k2"] });

export type AgentConfig = z.infer<typeof AgentConfigSchema>;

/** A PATCH body: any subset of fields, nested objects merged field by field. */
export const AgentConfigPatchSchema = z
  .object({
    lambda: z.object(LambdaTableSchema.shape).partial().strict(),
    alpha: z.number().gt(0).max(1),
    defaultQ: signedUnit,
    rewardMapping: z.object(RewardMappingSchema.shape).partial().strict(),
    k1: z.number().int().min(1).max(500),
    k2: z.number().int().min(1).max(100),
    similarityThreshold: z.number().min(-1).max(1).nullable(),
    capacity: z.number().int().min(1).max(1_000_000),
    decay: z.object(DecayConfigSchema.shape).partial().strict(),
    retention: z.object(RetentionConfigSchema.shape).partial().strict(),
    embedder: EmbedderChoiceSchema.nullable(),
  })
  .partial()
  .strict();

export type AgentConfigPatch = z.infer<typeof AgentConfigPatchSchema>;

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
  };
  return AgentConfigSchema.safeParse(merged);
}
