import type { Env } from "../../env";
import type { Policy } from "../../core/practice/run-types";
import { defaultVerifier, needsGroundTruth, type VerifierConfig } from "../../core/verifiers";
import { checkWebhookUrl } from "../../core/webhook-url";
import { unprocessable } from "../../core/errors";
import { llmConfigured, LlmNotConfiguredError } from "../../llm";
import { webhookUrlMode } from "./runs";
import { tenantWebhookSecret } from "../records/tenant-secrets";

/**
 * Checks shared by everything that fans policy and verifier units out on the queue, so that a
 * configuration that cannot work is a 422 (or a 503 without an LLM) before anything is stored.
 */

/** The request's verifier, else the dataset's, else the default for the tasks; refused when it needs ground truths the tasks lack. */
export function resolveVerifier(
  given: VerifierConfig | undefined,
  datasetDefault: VerifierConfig | null,
  tasks: readonly { groundTruth: string | null }[],
  what: string,
): VerifierConfig {
  const withTruth = tasks.filter((t) => t.groundTruth !== null && t.groundTruth !== "").length;
  const verifier = given ?? datasetDefault ?? defaultVerifier(withTruth === tasks.length);
  if (needsGroundTruth(verifier) && withTruth < tasks.length) {
    throw unprocessable(
      `The '${verifier.kind}' verifier needs a ground truth, but ${tasks.length - withTruth} of ${tasks.length} ${what} have none. Use 'majority', 'llm-judge' or 'webhook'.`,
      [{ path: "verifier", message: "Needs ground truths the dataset does not have" }],
    );
  }
  return verifier;
}

/** Webhook URLs must be allowed where Praxis runs, and calls to them are signed with the tenant's secret. */
export async function checkWebhookTargets(env: Env, tenantId: string, policy: Policy, verifier: VerifierConfig): Promise<void> {
  const mode = webhookUrlMode(env);
  for (const [path, url] of [
    ["policy.url", policy.kind === "webhook" ? policy.url : null],
    ["verifier.url", verifier.kind === "webhook" ? verifier.url : null],
  ] as const) {
    const problem = url ? checkWebhookUrl(url, mode) : null;
    if (problem) throw unprocessable(`The webhook URL ${problem}.`, [{ path, message: `The URL ${problem}` }]);
  }
  if (policy.kind === "webhook" || verifier.kind === "webhook") {
    if (!(await tenantWebhookSecret(env, tenantId))) {
      throw unprocessable(
        "Webhook policies and verifiers are signed with the tenant's webhook secret; create one first (POST /v1/webhook-secret).",
        [{ path: policy.kind === "webhook" ? "policy.url" : "verifier.url", message: "No webhook secret" }],
      );
    }
  }
}

/** A 503 that says how to configure an LLM, when the work needs one and none is configured. */
export function requireLlm(env: Env): void {
  if (!llmConfigured(env)) throw new LlmNotConfiguredError();
}
