import type { Env } from "../env";
import type { Logger } from "../core/logger";
import type { Claim, UnitInput, UnitResult } from "../core/practice/units";
import {
  addUsage,
  BudgetExceededError,
  createLlm,
  LlmNotConfiguredError,
  LlmSettingsError,
  LlmUnavailableError,
  RunBudgetSpentError,
  type CallGate,
  type LlmUsage,
} from "../llm";
import { isRetryable } from "../core/errors";
import type { PracticeRun } from "../../durable-objects/practice-run";
import type { Resilient } from "../../durable-objects/rpc-contract";
import { variables } from "../config";
import { checkWebhookUrl, webhookUrlModeOf } from "../core/webhook-url";
import { judgeAnswer } from "./judge";
import { webhookVerify } from "./webhook-verifier";
import { webhookRollout } from "./rollout-webhook";
import { WebhookError } from "./signed-post";
import { reviewPlan } from "./plan-review";
import { QUEUE_MAX_RETRIES } from "../core/job-messages";
import { llmRollout } from "./rollout";
import { batchUpdate, groupAdvantage, summarise } from "./learner";
import { hindsightLesson } from "./hindsight";
import { HEARTBEAT_MS } from "../core/practice/unit-timing";

const usageOf = (u: LlmUsage) => ({ calls: u.calls, tokensIn: u.tokensIn, tokensOut: u.tokensOut, costUsd: u.costUsd });

/** The tenant's webhook secret, looked up by whoever runs the unit (null: the tenant has none). */
export type WebhookSecrets = (tenantId: string) => Promise<string | null>;

async function secretOf(secrets: WebhookSecrets, tenantId: string): Promise<string> {
  const secret = await secrets(tenantId);
  if (!secret)
    throw new WebhookError("invalid-response", "The tenant has no webhook secret any more; create one with POST /v1/webhook-secret.");
  return secret;
}

/**
 * URLs were checked when stored; checked again before every call, since the deployment's rules may
 * have changed since and URLs stored before the check existed were never checked. Not retried.
 */
function callable(env: Env, url: string): void {
  const problem = checkWebhookUrl(url, webhookUrlModeOf(variables(env).PRAXIS_ENV));
  if (problem) throw new WebhookError("refused-url", `The webhook URL ${problem}; it was not called.`);
}

/** The ledger purposes of a unit's LLM calls: practice runs and evaluations count separately. */
export interface UnitPurposes {
  rollout: string;
  judge: string;
}

const PRACTICE_PURPOSES: UnitPurposes = { rollout: "practice-rollout", judge: "practice-judge" };

/** The traffic a unit exchanges with what runs it: a PracticeRun or an Evaluation Durable Object (their unit ledger). */
export interface UnitTraffic {
  claim(req: { key: string }): Promise<Claim>;
  report(req: { key: string; result: UnitResult }): Promise<boolean>;
  release(req: { key: string; lease: number }): Promise<void>;
  heartbeat(req: { key: string; lease: number }): Promise<boolean>;
}

/** A practice run as its units call it, handed in by the queue handler. */
export type PracticeRunHost = Resilient<PracticeRun>;

/**
 * Runs a unit's work while renewing its lease, so a long unit (a slow webhook) stays held and a
 * holder that dies is noticed within one lease. A failed heartbeat is not fatal: the work goes on
 * and its report is a no-op if someone else finished the unit meanwhile.
 */
async function holding<T>(host: UnitTraffic, key: string, lease: number, work: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => void host.heartbeat({ key, lease }).catch(() => false), HEARTBEAT_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/** How long one consumer invocation keeps taking handed-over units, well inside the consumer's wall-time limit. */
const CHAIN_MS = 60_000;
const CHAIN_UNITS = 100;

/** How often, and how long, a call asks again for room its run's calls in flight hold. */
const RESERVE_POLL_MS = 100;
const RESERVE_WAIT_MS = 60_000;

/** The run no longer wants this unit from this holder (it ended, or the lease passed): nothing to report. */
class UnitVoided extends Error {
  override name = "UnitVoided";
  constructor() {
    super("The run no longer takes work, or this unit's lease has passed; the call was not made.");
  }
}

/**
 * A practice unit's calls reserve room in their run's budget before they go out, under the unit's
 * lease; a refusal ends the unit as over budget (the run stops) or, for a run that no longer takes
 * work, as void.
 */
function runGate(host: PracticeRunHost, key: string, lease: number): CallGate {
  return {
    reserve: async (call) => {
      let outcome = await host.reserveCall({ key, lease, callId: call.callId, ask: { ...call.estimate, purpose: call.purpose } });
      // Room held by the run's calls in flight comes back as they settle; the lease is kept meanwhile.
      for (let waited = 0; outcome === "busy"; waited += RESERVE_POLL_MS) {
        if (waited >= RESERVE_WAIT_MS)
          throw new LlmUnavailableError("The run's budget stayed held by its calls in flight; the unit is retried later.", {
            retryable: true,
          });
        await new Promise((r) => setTimeout(r, RESERVE_POLL_MS));
        outcome = await host.reserveCall({ key, lease, callId: call.callId, ask: { ...call.estimate, purpose: call.purpose } });
      }
      if (outcome === "spent")
        throw new RunBudgetSpentError(
          `The run's budget has no room for this call (it may use ${call.estimate.tokensIn + call.estimate.tokensOut} tokens); the run stops.`,
        );
      if (outcome !== "reserved") throw new UnitVoided();
    },
    settle: (callId, o) =>
      host.settleCall({ callId, used: { tokensIn: o.tokensIn, tokensOut: o.tokensOut, costUsd: o.costUsd, failed: o.failed } }),
  };
}

async function execute(
  input: UnitInput,
  env: Env,
  log: Logger,
  secrets: WebhookSecrets,
  purposes: UnitPurposes,
  gate?: CallGate,
): Promise<UnitResult> {
  const llm = createLlm(env, { tenantId: input.tenantId, agentId: input.agentId, logger: log, gate });
  const done = <D>(r: { data: D; usage: LlmUsage }): UnitResult<D> => ({ data: r.data, usage: usageOf(r.usage) });
  switch (input.stage) {
    case "rollout": {
      if (input.policy.kind === "llm") return done(await llmRollout(llm, input, purposes.rollout));
      callable(env, input.policy.url);
      const r = await webhookRollout(input, await secretOf(secrets, input.tenantId));
      return r.awaiting ? { awaiting: true } : { data: r.data };
    }
    case "verify": {
      const v = input.verifier;
      if (v.kind === "llm-judge") {
        const j = await judgeAnswer(llm, v, { task: input.task, answer: input.answer, groundTruth: input.groundTruth }, purposes.judge);
        return { data: { reward: j.reward, reasoning: j.reasoning }, usage: usageOf(j.usage) };
      }
      if (v.kind === "webhook") {
        callable(env, v.url);
        const secret = await secretOf(secrets, input.tenantId);
        return {
          data: await webhookVerify(v, secret, {
            runId: input.runId,
            taskId: input.taskId,
            task: input.task,
            answer: input.answer,
            groundTruth: input.groundTruth,
          }),
        };
      }
      throw new TypeError(`the ${v.kind} verifier runs inside the run, not as a unit`);
    }
    case "summary":
      return done(await summarise(llm, input));
    case "advantage":
      return done(await groupAdvantage(llm, input));
    case "hindsight":
      return done(await hindsightLesson(llm, input));
    case "batch": {
      const plan = await batchUpdate(llm, input);
      const checked = await reviewPlan(llm, plan.data.operations);
      const usage = checked.usage ? addUsage(plan.usage, checked.usage) : plan.usage;
      return {
        data: { ...plan.data, review: checked.review, ...(checked.error ? { reviewError: checked.error } : {}) },
        usage: usageOf(usage),
      };
    }
  }
}

/**
 * Runs one unit: claim it from its host (a unit already done, or leased by a duplicate delivery
 * running alongside, makes no LLM call), run it, report the result. A failure is retried by the
 * queue with backoff; the last attempt reports the failure instead, so the host goes on.
 */
export async function runUnit(
  host: UnitTraffic,
  key: string,
  env: Env,
  log: Logger,
  delivery: { attempts: number },
  purposes: UnitPurposes,
  secrets: WebhookSecrets,
) {
  const claim = await host.claim({ key });
  if (claim.status !== "run") return { key, skipped: claim.status };
  try {
    const result = await holding(host, key, claim.lease, () => execute(claim.input, env, log, secrets, purposes));
    await host.report({ key, result });
    return { key, reported: true };
  } catch (err) {
    const failure = failureResult(err, delivery.attempts);
    if (failure) return host.report({ key, result: failure });
    await host.release({ key, lease: claim.lease });
    throw err;
  }
}

/** The result to record for a failed unit, or null when a retry may still succeed. */
function failureResult(err: unknown, attempts: number): UnitResult | null {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof BudgetExceededError || err instanceof RunBudgetSpentError) return { error: message, budgetExceeded: true };
  if (err instanceof LlmNotConfiguredError || err instanceof LlmSettingsError) return { error: message, fatal: true };
  // What no retry can mend (unusable model output after its repair call, a provider or webhook
  // refusing the request, any 4xx) is recorded at once: the consumer acks it, so nothing would retry.
  return !isRetryable(err) || attempts > QUEUE_MAX_RETRIES ? { error: message.slice(0, 2000) } : null;
}

/**
 * Runs a practice unit from the queue, then keeps running the units the run hands over while
 * there are any (bounded in time and count). A handed-over unit that fails goes back to the queue
 * (or, if permanent, is recorded), since it has no message of its own to retry.
 */
export async function runPracticeUnit(
  host: PracticeRunHost,
  msg: { key: string },
  env: Env,
  log: Logger,
  delivery: { attempts: number },
  secrets: WebhookSecrets,
) {
  const claim = await host.claim({ key: msg.key });
  if (claim.status !== "run") return { key: msg.key, skipped: claim.status };
  const started = Date.now();
  let current = { key: msg.key, input: claim.input, lease: claim.lease };
  let chained = 0;
  for (;;) {
    let result: UnitResult;
    try {
      const { key, lease, input } = current;
      result = await holding(host, key, lease, () => execute(input, env, log, secrets, PRACTICE_PURPOSES, runGate(host, key, lease)));
    } catch (err) {
      if (err instanceof UnitVoided) return { key: msg.key, chained, voided: true };
      const failure = failureResult(err, chained === 0 ? delivery.attempts : 1);
      if (failure) await host.report({ key: current.key, result: failure });
      else if (chained === 0) {
        await host.release({ key: current.key, lease: current.lease });
        throw err;
      } else await host.requeue({ key: current.key, lease: current.lease, error: err instanceof Error ? err.message : String(err) });
      return { key: msg.key, chained };
    }
    const chain = chained < CHAIN_UNITS && Date.now() - started < CHAIN_MS;
    if (!chain) {
      await host.report({ key: current.key, result });
      return { key: msg.key, chained };
    }
    const next = await host.reportAndNext({ key: current.key, result });
    if (!next) return { key: msg.key, chained };
    current = next;
    chained++;
  }
}
