import { describe, expect, it } from "vitest";
import { seededRandom } from "../../src/core/practice/rng";
import { chooseExploration, evidenceText, judge, PROBATION_RULE, type TrialCounts, type Verdict } from "../../src/core/probation";

/**
 * One lesson's trial as the service runs it: every matching prompt shows it by the seeded draw,
 * the outcome follows the arm's success rate, and the rule is asked after every outcome.
 */
function trial(pShown: number, pNotShown: number, random: () => number, n: number): { verdict: Verdict | null; exposures: number } {
  const c: TrialCounts = { shown: 0, shownOk: 0, control: 0, controlOk: 0 };
  const id = `exp_${n}`;
  for (let k = 0; k < 1000; k++) {
    const { shown } = chooseExploration(`ep_${n}_${k}`, [id]);
    const ok = random() < (shown.length ? pShown : pNotShown) ? 1 : 0;
    if (shown.length) c.shown++, (c.shownOk += ok);
    else c.control++, (c.controlOk += ok);
    const { verdict } = judge(c);
    if (verdict) return { verdict, exposures: c.shown };
  }
  return { verdict: null, exposures: c.shown };
}

function series(pShown: number, pNotShown: number, runs = 2000, seed = 7) {
  const random = seededRandom(seed);
  const out = { graduated: 0, retired: 0, inconclusive: 0, open: 0, exposures: [] as number[] };
  for (let n = 0; n < runs; n++) {
    const t = trial(pShown, pNotShown, random, n);
    out[t.verdict ?? "open"]++;
    out.exposures.push(t.exposures);
  }
  return { ...out, rate: (v: Verdict) => out[v] / runs, maxExposures: Math.max(...out.exposures) };
}

describe("the seeded choice of lessons on probation", () => {
  it("is the same for the same seed and lessons, and shows about the share, never more than the cap", () => {
    const ids = Array.from({ length: 6 }, (_, i) => `exp_${i}`);
    expect(chooseExploration("ep_a", ids)).toEqual(chooseExploration("ep_a", ids));
    let shownOnce = 0;
    const seeds = 4000;
    for (let s = 0; s < seeds; s++) {
      const one = chooseExploration(`ret_${s}`, ["exp_x"]);
      expect(one.shown.length + one.control.length).toBe(1);
      shownOnce += one.shown.length;
      const many = chooseExploration(`ret_${s}`, ids);
      expect(many.shown.length).toBeLessThanOrEqual(PROBATION_RULE.perPrompt);
      // Shown, control and crowded out (chosen past the cap) never overlap.
      expect(new Set([...many.shown, ...many.control]).size).toBe(many.shown.length + many.control.length);
    }
    expect(shownOnce / seeds).toBeGreaterThan(PROBATION_RULE.share - 0.03);
    expect(shownOnce / seeds).toBeLessThan(PROBATION_RULE.share + 0.03);
  });

  it("draws each lesson it tests independently of the others", () => {
    // A tested lesson's arm depends on the seed and itself only: another lesson in the match never moves it between the arms.
    let both = 0;
    for (let s = 0; s < 2000; s++) {
      const alone = chooseExploration(`ep_${s}`, ["exp_a"]);
      const withOther = chooseExploration(`ep_${s}`, ["exp_a", "exp_b"]);
      expect(withOther.shown.includes("exp_a")).toBe(alone.shown.includes("exp_a"));
      expect(withOther.control.includes("exp_a")).toBe(alone.control.includes("exp_a"));
      if (withOther.shown.length === 2) both++;
    }
    // Shown together about a quarter of the time, as two independent halves are.
    expect(both / 2000).toBeGreaterThan(0.2);
    expect(both / 2000).toBeLessThan(0.3);
    // More lessons match than a prompt tests: the ones it tests are picked, and each of them still drawn on its own.
    const six = Array.from({ length: 6 }, (_, i) => `exp_${i}`);
    const testedIn = new Map(six.map((id) => [id, 0]));
    for (let s = 0; s < 3000; s++) {
      const c = chooseExploration(`ret_${s}`, six);
      expect(c.shown.length + c.control.length).toBe(PROBATION_RULE.perPrompt);
      for (const id of [...c.shown, ...c.control]) testedIn.set(id, testedIn.get(id)! + 1);
    }
    for (const [, n] of testedIn) expect(n / 3000).toBeCloseTo(PROBATION_RULE.perPrompt / six.length, 1);
  });
});

describe("the rule", () => {
  it("waits for minEach outcomes per arm, however lopsided the first ones", () => {
    const m = PROBATION_RULE.minEach;
    expect(judge({ shown: m - 1, shownOk: m - 1, control: 20, controlOk: 0 }).verdict).toBeNull();
    expect(judge({ shown: 20, shownOk: 0, control: m - 1, controlOk: m - 1 }).verdict).toBeNull();
    expect(judge({ shown: m, shownOk: m, control: m, controlOk: 0 }).verdict).toBe("graduated");
    expect(judge({ shown: m, shownOk: 0, control: m, controlOk: m }).verdict).toBe("retired");
    expect(judge({ shown: PROBATION_RULE.maxExposures, shownOk: 10, control: 30, controlOk: 10 }).verdict).toBe("inconclusive");
    const j = judge({ shown: 6, shownOk: 0, control: 7, controlOk: 6 });
    expect(evidenceText({ shown: 6, shownOk: 0, control: 7, controlOk: 6 }, j)).toMatch(
      /^shown in 6 prompts \(0 succeeded at the first try\), not shown in 7 matching ones \(6\); difference -\d+ points, 99% interval -\d+ to -\d+$/,
    );
  });

  // A/A: a lesson that changes nothing. Every verdict but "inconclusive" is false.
  it.each([0.2, 0.5, 0.8])("A/A at a success rate of %s: graduates and retires at most one lesson in twenty each", (p) => {
    const s = series(p, p);
    expect(s.rate("graduated")).toBeLessThanOrEqual(0.05);
    expect(s.rate("retired")).toBeLessThanOrEqual(0.05);
    expect(s.open).toBe(0);
    expect(s.maxExposures).toBeLessThanOrEqual(PROBATION_RULE.maxExposures);
  });

  it("graduates a lesson that lifts first-try success from 0.2 to 0.95 within a dozen exposures, nearly always", () => {
    const s = series(0.95, 0.2);
    expect(s.rate("graduated")).toBeGreaterThanOrEqual(0.99);
    const sorted = [...s.exposures].sort((a, b) => a - b);
    expect(sorted[Math.floor(sorted.length * 0.9)]).toBeLessThanOrEqual(12);
  });

  it("retires a lesson that breaks what works (0.95 to 0), and a harmful lesson never gets more than maxExposures", () => {
    const s = series(0, 0.95);
    expect(s.rate("retired")).toBeGreaterThanOrEqual(0.99);
    expect([...s.exposures].sort((a, b) => a - b)[Math.floor(s.exposures.length * 0.9)]).toBeLessThanOrEqual(10);
    const weak = series(0, 0.2);
    expect(weak.rate("graduated")).toBe(0);
    expect(weak.maxExposures).toBeLessThanOrEqual(PROBATION_RULE.maxExposures);
  });
});
