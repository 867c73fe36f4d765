import type { Env } from "../env";
import type { Logger } from "../core/logger";
import { LlmClient, type LlmClientDeps } from "./client";
import { LlmNotConfiguredError } from "./errors";
import { D1UsageLedger } from "./ledger";
import { llmVariablesPresent, loadLlmSettings } from "./settings";

export * from "./client";
export * from "./errors";
export * from "./ledger";
export * from "./settings";
export * from "./types";

/**
 * True when an LLM is configured (LLM_BASE_URL and LLM_MODEL set). Background jobs check this to
 * record "skipped: no LLM". A configuration that is present but invalid counts as configured, so
 * it fails loudly (createLlm throws LlmSettingsError) instead of being skipped in silence.
 */
export function llmConfigured(env: Env): boolean {
  return llmVariablesPresent(env);
}

/**
 * The LLM client for one tenant (and optionally one agent), with the D1 usage ledger as recorder
 * and budget guard. Throws LlmNotConfiguredError without an LLM and LlmSettingsError when the
 * variables are invalid; `toProblem` turns either into a 503 `llm-not-configured`.
 */
export function createLlm(
  env: Env,
  ctx: { tenantId: string; agentId?: string | null; logger?: Logger; now?: () => number; fetch?: LlmClientDeps["fetch"]; maxWaitMs?: number },
): LlmClient {
  const settings = loadLlmSettings(env);
  if (!settings) throw new LlmNotConfiguredError();
  const ledger = new D1UsageLedger(env, { now: ctx.now });
  return new LlmClient(settings, {
    tenantId: ctx.tenantId,
    agentId: ctx.agentId ?? null,
    recorder: ledger,
    budget: ledger,
    logger: ctx.logger,
    fetch: ctx.fetch,
    ...(ctx.maxWaitMs !== undefined ? { maxWaitMs: ctx.maxWaitMs } : {}),
  });
}
