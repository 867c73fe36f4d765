import { sha256Hex } from "../../core/api-key";
import type { RolloutAnswer } from "../../core/practice/run-types";
import type { RolloutOutcome, UnitData } from "../../core/practice/units";
import { conflict, notFound, unauthorized } from "../../core/errors";
import { rolloutData } from "../../practice/rollout-webhook";

/** The header a webhook agent sends its rollout's `resultSecret` in. */
export const ROLLOUT_SECRET_HEADER = "X-Praxis-Rollout-Secret";

export interface RolloutRef {
  runId: string;
  key: string;
  dispatchId: string;
}

/**
 * Records the late result of a webhook rollout (the agent answered 202) with the run or evaluation
 * that owns it. Only the dispatch's holder may: the owner must belong to the key's tenant (and, for
 * a restricted key, one of its agents) and the request must carry the dispatch's secret.
 */
export async function recordLateRollout(
  key: { agentIds: string[] | null },
  ref: RolloutRef,
  ownerAgentId: string | null,
  host: {
    rolloutResult(req: { key: string; dispatchId: string; secretHash: string | null; data: UnitData["rollout"] }): Promise<RolloutOutcome>;
  },
  answer: RolloutAnswer,
  secret: string | null,
): Promise<"accepted" | "duplicate"> {
  const rolloutId = `${ref.runId}.${ref.key.replace(/\.rollout$/, "")}.${ref.dispatchId}`;
  const missing = () => notFound(`Rollout '${rolloutId}' does not exist.`);
  if (ownerAgentId === null || (key.agentIds && !key.agentIds.includes(ownerAgentId))) throw missing();
  const outcome = await host.rolloutResult({
    key: ref.key,
    dispatchId: ref.dispatchId,
    secretHash: secret ? await sha256Hex(secret) : null,
    data: rolloutData(answer),
  });
  switch (outcome) {
    case "accepted":
    case "duplicate":
      return outcome;
    case "unknown":
      throw missing();
    case "unauthorized":
      throw unauthorized(`Send the rollout's resultSecret (from its dispatch) in the ${ROLLOUT_SECRET_HEADER} header.`);
    case "expired":
      throw conflict(`Rollout '${rolloutId}' is past its deadline; its result is no longer taken.`);
    case "conflict":
      throw conflict(`Rollout '${rolloutId}' already has a different result (or timed out).`);
    case "finished":
      throw conflict(`Rollout '${rolloutId}' belongs to a run or evaluation that no longer takes results.`);
  }
}
