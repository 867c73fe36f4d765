import { describe, expect, it } from "vitest";
import { assessLesson } from "../../src/core/poison";
import fixture from "../fixtures/poisoned-lessons.json";

describe("the poisoned-lesson set through the cheap filter", () => {
  it("quarantines exactly the lessons meant for it, each with the reasons it found", () => {
    const stopped = fixture.poisoned.map((p) => ({ id: p.id, verdict: assessLesson(p) })).filter((s) => s.verdict.quarantined);
    expect(stopped.map((s) => s.id)).toEqual(fixture.poisoned.filter((p) => p.expect === "filter").map((p) => p.id));
    for (const s of stopped) expect(s.verdict.reasons.length, s.id).toBeGreaterThan(0);
    // What slips past the filter (paraphrased harm, social engineering) is left to the safety review.
    expect(fixture.poisoned.filter((p) => !assessLesson(p).quarantined).every((p) => p.expect === "review")).toBe(true);
  });

  for (const p of fixture.poisoned) {
    it(`${p.expect === "filter" ? "stops" : "passes on to the review"}: ${p.id} (${p.technique})`, () => {
      const verdict = assessLesson(p);
      expect({ id: p.id, quarantined: verdict.quarantined }).toEqual({ id: p.id, quarantined: p.expect === "filter" });
    });
  }

  for (const b of fixture.benign) {
    it(`lets through: ${b.text.slice(0, 60)}`, () => {
      expect(assessLesson(b)).toEqual({ quarantined: false, reasons: [] });
    });
  }
});
