import type { Env } from "../env";
import type { Logger } from "../core/logger";
import { LlmClient, type LlmClientDeps } from "./client";
import { LlmNotConfiguredError } from "./errors";
import { LlmLedger } from "./ledger";
import { costUsd, llmVariablesPresent, loadLlmSettings } from "./settings";
import { variables } from "../config";
import type { Embedder, EmbeddingMeter } from "../adapters/embedder";
import type { CallGate, LedgerRecorder } from "./types";
import type { OpenCall } from "../core/metered-call";

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
 * variables are invalid: both domain errors of kind `llm-not-configured` (a 503 over REST).
 */
export function createLlm(
  env: Env,
  ctx: {
    tenantId: string;
    agentId?: string | null;
    logger?: Logger;
    now?: () => number;
    fetch?: LlmClientDeps["fetch"];
    gate?: CallGate;
    maxWaitMs?: number;
  },
): LlmClient {
  const settings = loadLlmSettings(env);
  if (!settings) throw new LlmNotConfiguredError();
  const ledger = new LlmLedger(env, { now: ctx.now });
  return new LlmClient(settings, {
    tenantId: ctx.tenantId,
    agentId: ctx.agentId ?? null,
    recorder: ctx.gate ? gated(ledger, ctx.gate) : ledger,
    budget: ledger,
    logger: ctx.logger,
    fetch: ctx.fetch,
    ...(ctx.maxWaitMs !== undefined ? { maxWaitMs: ctx.maxWaitMs } : {}),
  });
}

/**
 * The ledger behind a gate: each call is reserved at the gate first, then its row opened; its
 * outcome settles both. A row that cannot open gives the gate's reservation back.
 */
function gated(ledger: LlmLedger, gate: CallGate): LedgerRecorder {
  return {
    record: (entry) => ledger.record(entry),
    open: async (call) => {
      await gate.reserve(call);
      let opened: OpenCall;
      try {
        opened = await ledger.open(call);
      } catch (e) {
        await gate.settle(call.callId, { tokensIn: 0, tokensOut: 0, costUsd: 0, estimated: false, failed: true }).catch(() => undefined);
        throw e;
      }
      return {
        settle: async (outcome) => {
          await opened.settle(outcome);
          await gate.settle(call.callId, outcome);
        },
      };
    },
  };
}

/**
 * The meter of an agent's paid embedder: each request's row goes in the usage ledger (purpose
 * `embed`, role `embedder`) and counts in the tenant's daily budget like an LLM call, priced by
 * LLM_PRICES when it names the embedding model.
 */
export function embeddingMeter(env: Env, tenantId: string, agentId: string | null): EmbeddingMeter {
  const ledger = new LlmLedger(env);
  // An invalid price table reads as empty: the embedding is unpriced, its tokens are still counted.
  const prices = { prices: variables(env).LLM_PRICES };
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

/**
 * An agent's embedder as its reads and writes use it: one that spends a paid endpoint's tokens
 * (the operator's key) does so through the usage ledger, in the name of the agent's tenant, so
 * each request is a row and counts in the daily budget, wherever it embeds (the agent's object or
 * a Worker serving its reads).
 */
export function meteredEmbedder(embedder: Embedder, env: Env, tenantId: string, agentId: string): Embedder {
  if (embedder.provider !== "openai") return embedder;
  const meter = embeddingMeter(env, tenantId, agentId);
  return {
    provider: embedder.provider,
    model: embedder.model,
    get dims() {
      return embedder.dims;
    },
    similarityThreshold: embedder.similarityThreshold,
    embed: (texts) => embedder.embed(texts, meter),
  };
}
