import type { Env } from "../env";
import type { Logger } from "../core/logger";
import { LlmClient, type LlmClientDeps } from "./client";
import { LlmNotConfiguredError } from "./errors";
import { D1UsageLedger } from "./ledger";
import { costUsd, llmVariablesPresent, loadLlmSettings, type LlmSettings } from "./settings";
import type { EmbeddingMeter } from "../adapters/embedder";

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
  ctx: { tenantId: string; agentId?: string | null; logger?: Logger; now?: () => number; fetch?: LlmClientDeps["fetch"] },
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
  });
}

/**
 * The meter of an agent's paid embedder: each request's row goes in the usage ledger (purpose
 * `embed`, role `embedder`) and counts in the tenant's daily budget like an LLM call, priced by
 * LLM_PRICES when it names the embedding model.
 */
export function embeddingMeter(env: Env, tenantId: string, agentId: string | null): EmbeddingMeter {
  const ledger = new D1UsageLedger(env);
  let prices: Pick<LlmSettings, "prices"> = { prices: {} };
  try {
    prices = loadLlmSettings(env) ?? prices;
  } catch {
    // Invalid LLM variables make no embedding unpriceable: its tokens are still counted.
  }
  return async (model, estimate) => {
    const call = await ledger.open({
      tenantId,
      agentId,
      purpose: "embed",
      role: "embedder",
      model,
      callId: crypto.randomUUID(),
      estimate: { tokensIn: estimate, tokensOut: 0, costUsd: costUsd(prices, model, estimate, 0) },
    });
    return { settle: (o) => call.settle({ ...o, costUsd: costUsd(prices, model, o.tokensIn, 0) }) };
  };
}
