import type { RolloutAnswer } from "../core/practice/run-types";
import type { UnitData } from "../core/practice/units";
import { notFound } from "../core/problem";
import { rolloutData } from "../practice/rollout-webhook";

/**
 * Records the late result of a webhook rollout (the agent answered 202) with the run or evaluation
 * that owns it. The owner must belong to the key's tenant and, for a restricted key, to one of its
 * agents; anything else is a 404 like a missing rollout.
 */
export async function recordLateRollout(
  key: { agentIds: string[] | null },
  ref: { runId: string; key: string },
  ownerAgentId: string | null,
  host: { rolloutResult(key: string, data: UnitData["rollout"]): Promise<"accepted" | "duplicate" | "unknown"> },
  answer: RolloutAnswer,
): Promise<"accepted" | "duplicate"> {
  const missing = () => notFound(`Rollout '${ref.runId}.${ref.key.replace(/\.rollout$/, "")}' does not exist.`);
  if (ownerAgentId === null || (key.agentIds && !key.agentIds.includes(ownerAgentId))) throw missing();
  const outcome = await host.rolloutResult(ref.key, rolloutData(answer));
  if (outcome === "unknown") throw missing();
  return outcome;
}
