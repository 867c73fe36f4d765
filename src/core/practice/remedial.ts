import type { RemedialConfig } from "../agent-config";
import type { DatasetTaskInput, EpisodeForDataset } from "./dataset-types";

export type RemedialVerdict =
  | { due: false; reason: string; successRate: number | null }
  | { due: true; successRate: number; failing: number };

/** Whether the window (the agent's most recently ended episodes) calls for remedial practice. */
export function remedialVerdict(cfg: RemedialConfig, window: readonly EpisodeForDataset[]): RemedialVerdict {
  if (!cfg.enabled) return { due: false, reason: "remedial practice is off", successRate: null };
  if (window.length < cfg.windowEpisodes) {
    return { due: false, reason: `${window.length} of ${cfg.windowEpisodes} ended episodes in the window`, successRate: null };
  }
  const recent = window.slice(0, cfg.windowEpisodes);
  const failing = recent.filter((e) => e.outcome !== "success").length;
  const successRate = (recent.length - failing) / recent.length;
  if (successRate >= cfg.minSuccessRate) return { due: false, reason: "the success rate is at or above the minimum", successRate };
  return { due: true, successRate, failing };
}

/**
 * One practice task per distinct failing task of the window (the latest failure's episode id is
 * the task id). Its ground truth is the answer of the latest success of the same task that ended
 * after the task first failed: the agent found the answer after failing. Tasks without one get no
 * ground truth and are left to a verifier that judges without.
 */
export function remedialTasks(agentId: string, window: readonly EpisodeForDataset[]): DatasetTaskInput[] {
  const byTask = new Map<string, { latest: EpisodeForDataset; firstFailedAt: number }>();
  for (const e of window) {
    if (e.outcome === "success") continue;
    const key = e.task.trim();
    const seen = byTask.get(key);
    if (!seen) byTask.set(key, { latest: e, firstFailedAt: e.endedAt });
    else {
      if (e.endedAt > seen.latest.endedAt) seen.latest = e;
      seen.firstFailedAt = Math.min(seen.firstFailedAt, e.endedAt);
    }
  }
  return [...byTask.entries()].map(([key, { latest, firstFailedAt }]) => {
    const fix = window
      .filter((e) => e.outcome === "success" && e.task.trim() === key && e.endedAt > firstFailedAt && e.answer)
      .reduce<EpisodeForDataset | null>((best, e) => (!best || e.endedAt > best.endedAt ? e : best), null);
    return {
      id: latest.id,
      task: latest.task,
      groundTruth: fix?.answer ?? null,
      metadata: { agentId, episodeId: latest.id, outcome: latest.outcome, endedAt: latest.endedAt, groundTruthFrom: fix?.id ?? null },
    };
  });
}
