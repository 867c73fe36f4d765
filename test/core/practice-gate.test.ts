import { describe, expect, it } from "vitest";
import { choosePromotion, shouldStopEarly, type EpochResult } from "../../src/core/practice/gate";
import { enforceCap, type RunExperience } from "../../src/core/practice/plan";

const r = (epoch: number, accuracy: number | null, status: EpochResult["status"] = "completed"): EpochResult => ({
  epoch,
  status,
  accuracy,
  interval: accuracy === null ? null : [Math.max(0, accuracy - 0.1), Math.min(1, accuracy + 0.1)],
});

describe("choosePromotion", () => {
  it("gate: promotes only when the final library is at least as good as the start plus minGain", () => {
    expect(choosePromotion("gate", [r(0, 0.5), r(1, 0.6)], { minGain: 0, finalEpoch: 1 })).toMatchObject({ promote: true, epoch: 1 });
    expect(choosePromotion("gate", [r(0, 0.5), r(1, 0.5)], { minGain: 0, finalEpoch: 1 })).toMatchObject({ promote: true });
    expect(choosePromotion("gate", [r(0, 0.5), r(1, 0.55)], { minGain: 0.1, finalEpoch: 1 })).toMatchObject({ promote: false });
    const refused = choosePromotion("gate", [r(0, 0.5), r(1, 0.4)], { minGain: 0, finalEpoch: 1 });
    expect(refused.promote).toBe(false);
    expect(refused.reason).toContain("40.0% [30.0%, 50.0%] (epoch 1)");
    expect(choosePromotion("gate", [r(0, 0.5), r(1, null, "failed")], { minGain: 0, finalEpoch: 1 }).promote).toBe(false);
    expect(choosePromotion("gate", [r(0, 0.5), r(1, 0.9)], { minGain: 0, finalEpoch: null }).promote).toBe(false);
    expect(choosePromotion("gate", [r(0, null, "failed"), r(1, 0.9)], { minGain: 0, finalEpoch: 1 }).promote).toBe(false);
  });

  it("best: the best epoch, earliest on ties, and nothing when no epoch beats the start", () => {
    expect(choosePromotion("best", [r(0, 0.5), r(1, 0.8), r(2, 0.8), r(3, 0.6)], { minGain: 0, finalEpoch: 3 })).toMatchObject({
      promote: true,
      epoch: 1,
    });
    expect(choosePromotion("best", [r(0, 0.5), r(1, 0.5), r(2, 0.3)], { minGain: 0, finalEpoch: 2 })).toMatchObject({ promote: false });
    expect(choosePromotion("best", [r(0, 0.5), r(1, null, "failed"), r(2, 0.7)], { minGain: 0, finalEpoch: 2 })).toMatchObject({
      promote: true,
      epoch: 2,
    });
  });

  it("always and never ignore the evidence, but always reports it", () => {
    expect(choosePromotion("always", [r(0, 0.9), r(1, 0.1)], { minGain: 0, finalEpoch: 1 })).toMatchObject({ promote: true, epoch: null });
    expect(choosePromotion("always", [r(0, 0.9), r(1, 0.1)], { minGain: 0, finalEpoch: 1 }).reason).toContain("10.0%");
    expect(choosePromotion("never", [r(0, 0.1), r(1, 0.9)], { minGain: 0, finalEpoch: 1 }).promote).toBe(false);
  });
});

describe("shouldStopEarly", () => {
  it("counts epochs without gain over the best so far, on the settled prefix only", () => {
    expect(shouldStopEarly([r(0, 0.5), r(1, 0.7), r(2, 0.6), r(3, 0.7)], 2)).toBe(true);
    expect(shouldStopEarly([r(0, 0.5), r(1, 0.7), r(2, 0.6)], 2)).toBe(false);
    expect(shouldStopEarly([r(0, 0.5), r(1, 0.7), r(3, 0.6), r(4, 0.6)], 2)).toBe(false);
    expect(shouldStopEarly([r(0, 0.5), r(1, 0.4)], 1)).toBe(true);
    expect(shouldStopEarly([r(0, 0.5), r(1, null, "failed"), r(2, 0.4)], 1)).toBe(false);
  });
});

describe("enforceCap", () => {
  const e = (id: string, q: number | undefined, touched: number | null): RunExperience => ({
    id,
    text: id,
    lineage: touched === null ? [{ op: "start" }] : [{ op: "add", epoch: 0, step: touched }],
    ...(q === undefined ? {} : { q }),
  });

  it("removes the lowest-utility lessons, oldest first among equals, and keeps the order", () => {
    const lib = [e("a", 0.9, null), e("b", 0.1, null), e("c", undefined, 1), e("d", undefined, 0), e("e", 0.5, null)];
    const out = enforceCap(lib, 3, 0.5);
    expect(out.evicted.map((x) => x.id)).toEqual(["b", "e"]);
    expect(out.library.map((x) => x.id)).toEqual(["a", "c", "d"]);
    expect(enforceCap(lib, 5, 0.5).evicted).toEqual([]);
  });
});
