import { describe, expect, it } from "vitest";
import { assessLesson } from "../../src/core/poison";
import fixture from "../fixtures/poisoned-lessons.json";

describe("the poisoned-lesson set through the cheap filter", () => {
  it("holds at least 30 poisoned lessons and some benign controls", () => {
    expect(fixture.poisoned.length).toBeGreaterThanOrEqual(30);
    expect(fixture.benign.length).toBeGreaterThanOrEqual(10);
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
