import { z } from "zod";

const tolerance = {
  absTol: z.number().nonnegative().max(1e12).optional().describe("absolute tolerance (default 1e-6)"),
  relTol: z.number().nonnegative().max(1).optional().describe("relative tolerance (default 1e-6)"),
};

const compiles = (v: { pattern: string; flags?: string }) => {
  try {
    new RegExp(v.pattern, v.flags);
    return true;
  } catch {
    return false;
  }
};

/**
 * How a practice answer is scored. Given per dataset (the default) or per run (wins). Every kind
 * is validated here so that a bad configuration is a 422 when the run is created, never a
 * failure in the middle of a run.
 */
export const VerifierSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("exact") }).strict(),
  z.object({ kind: z.literal("contains"), caseSensitive: z.boolean().default(false) }).strict(),
  z
    .object({
      kind: z.literal("regex"),
      pattern: z.string().min(1).max(2000),
      flags: z
        .string()
        .regex(/^[imsu]*$/, "flags may only contain i, m, s and u")
        .optional(),
    })
    .strict()
    .refine(compiles, { message: "pattern is not a valid regular expression", path: ["pattern"] }),
  z.object({ kind: z.literal("numeric"), ...tolerance }).strict(),
  z.object({ kind: z.literal("math"), ...tolerance }).strict(),
  z.object({ kind: z.literal("json"), mode: z.enum(["deep", "subset"]).default("deep") }).strict(),
  z
    .object({
      kind: z.literal("llm-judge"),
      rubric: z.string().trim().min(1).max(8000).optional(),
      passThreshold: z.number().min(0).max(1).default(0.5).describe("score at or above which the verdict counts as correct"),
    })
    .strict(),
  z.object({ kind: z.literal("majority") }).strict(),
  z
    .object({
      kind: z.literal("webhook"),
      url: z.url({ protocol: /^https?$/ }).max(2000),
      timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
    })
    .strict(),
]);

export type VerifierConfig = z.infer<typeof VerifierSchema>;
export type VerifierKind = VerifierConfig["kind"];

/** The result of checking one answer. */
export const VerdictSchema = z.object({
  reward: z.number().min(0).max(1),
  reasoning: z.string(),
});
export type Verdict = z.infer<typeof VerdictSchema>;
