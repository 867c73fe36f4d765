import { outcome } from "../core/errors";
import type { RewardRequest } from "../core/memory-types";
import type { Caller, Deps } from "./deps";
import { agentMemory, agentWithRow } from "./agent-access";
import { recordAudit } from "./audit";

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
    return memory.reward({ reward: input.reward, idempotencyKey: input.idempotencyKey, teacher: key.keyId });
  });

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
