import { describe, expect, it } from "vitest";
import { RemedialConfigSchema } from "../../src/core/agent-config";
import { remedialTasks, remedialVerdict } from "../../src/core/practice/remedial";
import type { EpisodeForDataset } from "../../src/core/practice/dataset-types";

/** Most recently ended first, as the agent hands them out. */
const ep = (id: string, task: string, outcome: string, answer: string | null, endedAt: number): EpisodeForDataset => ({
  id,
  task,
  outcome,
  answer,
  endedAt,
});

describe("remedial practice decisions", () => {
  it("counts only a full window and compares strictly below the minimum", () => {
    const cfg = RemedialConfigSchema.parse({ enabled: true, windowEpisodes: 10, minSuccessRate: 0.6 });
    const window = (ok: number) => Array.from({ length: 10 }, (_, i) => ep(`e${i}`, "t", i < ok ? "success" : "failure", null, 100 - i));
    expect(remedialVerdict(cfg, window(0).slice(0, 9))).toMatchObject({ due: false, reason: "9 of 10 ended episodes in the window" });
    expect(remedialVerdict(cfg, window(6))).toMatchObject({ due: false, successRate: 0.6 });
    expect(remedialVerdict(cfg, window(5))).toEqual({ due: true, successRate: 0.5, failing: 5 });
    expect(remedialVerdict({ ...cfg, enabled: false }, window(0))).toMatchObject({ due: false });
  });

  it("takes a ground truth only from a success after the task failed, one task per failing task", () => {
    const window = [
      ep("e6", "B", "failure", "b?", 60),
      ep("e5", "A ", "success", "a!", 50),
      ep("e4", "A", "timeout", null, 40),
      ep("e3", "B", "success", "b-early", 30),
      ep("e2", "A", "failure", "a?", 20),
      ep("e1", "B", "failure", "b??", 35),
      ep("e0", "C", "success", "c", 5),
    ];
    const tasks = remedialTasks("bot", window);
    expect(tasks.map((t) => [t.id, t.groundTruth, t.metadata?.groundTruthFrom])).toEqual([
      ["e6", null, null],
      ["e4", "a!", "e5"],
    ]);
  });
});
