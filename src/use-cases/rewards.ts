import { outcome, unprocessable } from "../core/errors";
import { tokenKeyId } from "../core/retrieval-token";
import type { RewardRequest } from "../core/memory-types";
import type { Caller, Deps } from "../platform/deps";
import { agentMemory, agentWithRow } from "../platform/objects/agent-access";
import { recordAudit } from "../platform/records/audit";
import { revokedAmong } from "../platform/edge/key-store";

/**
 * What an agent learns from outcomes — Q ← Q + α(reward − Q) for the memories that served — and
 * what it has learned so far (Q-value analytics).
 */
type AgentRef = { agentId: string };

/**
 * An outcome of retrieved (or cited) memories. The caller's key is their teacher, whose teaching
 * of each memory is capped per hour; `replayed` when the same reward was applied before.
 */
export const reportReward = (
  deps: Deps,
  caller: Caller,
  input: AgentRef & { reward: RewardRequest; idempotencyKey?: string | undefined },
) =>
  outcome(async () => {
    const { key, memory } = agentMemory(deps, caller, input.agentId, "write");
    await refuseRevokedRetriever(deps, key.keyId, input.reward.retrievalId);
    return memory.reward({ reward: input.reward, idempotencyKey: input.idempotencyKey, teacher: key.keyId });
  });

/**
 * A retrieval made by a key revoked since earns no reward, from any key: revoking a key voids what
 * it retrieved. The key that rewards passed authentication, so only another key's retrieval is
 * looked up (one D1 read, off the path of a key rewarding its own retrievals).
 */
async function refuseRevokedRetriever(deps: Deps, rewarding: string, retrievalId: string | undefined): Promise<void> {
  const retrieving = retrievalId ? tokenKeyId(retrievalId) : null;
  if (!retrieving || retrieving === rewarding) return;
  if ((await revokedAmong(deps.env, [retrieving])).length)
    throw unprocessable("The retrievalId was made by an API key that has since been revoked; its retrievals earn no reward.", [
      { path: "retrievalId", message: "made by a revoked key" },
    ]);
}

/** Rewards (or penalises) one memory directly, outside any episode; kept in the audit log with its reason. */
export const rewardMemory = (
  deps: Deps,
  caller: Caller,
  input: AgentRef & { memoryId: string; reward: number; reason?: string | undefined },
) =>
  outcome(async () => {
    const { agentId, memoryId, reward, reason } = input;
    const { key, memory } = await agentWithRow(deps, caller, agentId, "write");
    const result = await memory.reward({ reward: { memoryIds: [memoryId], reward } });
    await recordAudit(deps, caller, {
      tenantId: key.tenantId,
      action: "memory.reward",
      target: `${agentId}/${memoryId}`,
      detail: { reward, ...(reason ? { reason } : {}) },
    });
    return result;
  });

/** Q-value analytics; with `history`, each ranked memory's Q history too (null without). */
export const utilityAnalytics = (
  deps: Deps,
  caller: Caller,
  input: AgentRef & { top: number; window: number; buckets: number; history?: boolean },
) =>
  outcome(async () => {
    const { agentId, history, ...query } = input;
    const { memory } = agentMemory(deps, caller, agentId, "read");
    const analytics = await memory.analytics(query);
    if (!history) return { analytics, history: null };
    const ids = [...new Set([...analytics.top, ...analytics.bottom].map((m) => m.id))];
    const entries = await Promise.all(ids.map(async (id) => [id, (await memory.getExperience({ id })).qHistory ?? []] as const));
    return { analytics, history: Object.fromEntries(entries) };
  });
