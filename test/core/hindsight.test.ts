import { describe, expect, it } from "vitest";
import {
  attributePlan,
  checkHindsight,
  citedLabels,
  hindsightCap,
  hindsightEligible,
  originOf,
  pickHindsight,
  quotesReference,
  suspectLabels,
  type HindsightCandidate,
} from "../../src/core/practice/hindsight";
import type { RunExperience } from "../../src/core/practice/plan";

const lib = (...texts: string[]): RunExperience[] => texts.map((text, i) => ({ id: `e${i}`, text, lineage: [{ op: "start" }] }));

describe("the leakage check", () => {
  it("refuses a lesson that states the reference, whatever its case and spacing", () => {
    expect(quotesReference("Remember the capital is  PARIS when asked.", "Paris")).toBe(true);
    expect(quotesReference("The total is 1000 metres here.", "1,000 metres")).toBe(true);
    expect(quotesReference("Answer with: the quick   brown fox jumps", "The quick brown fox")).toBe(true);
    expect(quotesReference("x = 3.5 always", "3.5")).toBe(true);
  });

  it("matches short references as whole tokens only, so a digit elsewhere is no leak", () => {
    expect(quotesReference("Add 4 to the running total before answering.", "4")).toBe(true);
    expect(quotesReference("Check the 42 cases and lesson G4 before answering.", "4")).toBe(false);
    expect(quotesReference("Round 3.45 to one decimal.", "4")).toBe(false);
    expect(quotesReference("Write numbers like 140 in full.", "14")).toBe(false);
    expect(quotesReference("Answer yes or no only after checking.", "no")).toBe(false);
    expect(quotesReference("Here the answer is no.", "No")).toBe(true);
    expect(quotesReference("Read a question twice before you pick an option.", "A")).toBe(false);
    expect(quotesReference("Pick (b) when unsure.", "B")).toBe(true);
    expect(quotesReference("When unsure, choose B.", "b")).toBe(true);
    expect(quotesReference("Check units: metres, not kilometres.", "km")).toBe(false);
  });

  it("matches long references anywhere, and ignores empty or missing ones", () => {
    expect(quotesReference("Write SELECT name FROM users WHERE id=1 exactly.", "select name from users")).toBe(true);
    expect(quotesReference("Anything at all.", null)).toBe(false);
    expect(quotesReference("Anything at all.", "  ...  ")).toBe(false);
  });
});

describe("choosing and checking hindsight", () => {
  const c = (task: number, over: Partial<HindsightCandidate> = {}): HindsightCandidate => ({
    task,
    rewards: [0, 0, 0],
    answered: 3,
    hasSignal: true,
    citesLesson: false,
    ...over,
  });

  it("takes only all-failed groups with answers and a signal", () => {
    expect(hindsightEligible(c(0))).toBe(true);
    expect(hindsightEligible(c(0, { rewards: [0, 1, 0] }))).toBe(false);
    expect(hindsightEligible(c(0, { rewards: [0.3, 0.3] }))).toBe(true);
    expect(hindsightEligible(c(0, { hasSignal: false }))).toBe(false);
    expect(hindsightEligible(c(0, { answered: 0 }))).toBe(false);
  });

  it("caps calls per step (one per four tasks by default, off when disabled) and puts cited lessons first, reproducibly", () => {
    expect(hindsightCap({ hindsight: true }, 20)).toBe(5);
    expect(hindsightCap({ hindsight: true }, 1)).toBe(1);
    expect(hindsightCap({ hindsight: true, hindsightPerStep: 7 }, 20)).toBe(7);
    expect(hindsightCap({}, 20)).toBe(0);
    expect(hindsightCap({ hindsight: false, hindsightPerStep: 7 }, 20)).toBe(0);
    const cands = [c(0), c(1), c(2, { citesLesson: true }), c(3), c(4, { hasSignal: false })];
    const a = pickHindsight(cands, 2, 99);
    expect(a.picked).toHaveLength(2);
    expect(a.picked).toContain(2);
    expect(a.overCap).toHaveLength(2);
    expect(a.overCap).not.toContain(4);
    expect(pickHindsight(cands, 2, 99)).toEqual(a);
  });

  it("names the cited lessons as suspects, or every lesson when none was cited", () => {
    expect(suspectLabels(["Per [G1] I subtract.", "Using [G1] and [G7]"], 3)).toEqual(["G1"]);
    expect(suspectLabels(["no labels"], 2)).toEqual(["G0", "G1"]);
    expect(suspectLabels([], 0)).toEqual([]);
    expect(citedLabels(["Per [G0] I subtract."], 1)).toEqual(["G0"]);
    expect(citedLabels(["no labels"], 1)).toEqual([]);
  });

  it("keeps one operation, refuses a leak and a change to a lesson the attempts did not use", () => {
    const snap = lib("Divide by ten.", "Show your work.");
    const leak = checkHindsight({ op: "add", target: "", text: "The answer is 42.", reason: "" }, snap, ["G0"], "42", "h");
    expect(leak).toMatchObject({ kept: [], leaked: true });
    expect(leak.dropped[0]!.reason).toMatch(/reference answer/);
    const wrongTarget = checkHindsight({ op: "delete", target: "G1", text: "", reason: "" }, snap, ["G0"], "42", "h");
    expect(wrongTarget.kept).toEqual([]);
    expect(wrongTarget.dropped[0]!.reason).toMatch(/only delete a lesson the failed attempts used/);
    const fix = checkHindsight({ op: "modify", target: "[g0]", text: "Multiply by one thousand.", reason: "" }, snap, ["G0"], "42", "h");
    expect(fix.kept).toEqual([{ op: "modify", target: "G0", text: "Multiply by one thousand.", reason: "" }]);
    expect(checkHindsight({ op: "none", target: "", text: "", reason: "" }, snap, ["G0"], "42", "h")).toEqual({
      kept: [],
      dropped: [],
      leaked: false,
    });
  });
});

describe("provenance of a batch plan", () => {
  it("traces rewritten texts and deletes to the proposals they came from", () => {
    const proposals = [
      {
        op: "add" as const,
        target: "",
        text: "Multiply kilometres by one thousand to get metres.",
        reason: "",
        provenance: "hindsight" as const,
      },
      { op: "add" as const, target: "", text: "Re-check each carry when adding.", reason: "", provenance: "contrast" as const },
      { op: "delete" as const, target: "G0", text: "", reason: "", provenance: "hindsight" as const },
      { op: "delete" as const, target: "G1", text: "", reason: "", provenance: "contrast" as const },
    ];
    const plan = [
      { op: "add" as const, text: "To get metres, multiply kilometres by one thousand.", targets: [] },
      { op: "add" as const, text: "Re-check every carry when adding numbers.", targets: [] },
      { op: "delete" as const, text: "", targets: [0] },
      { op: "delete" as const, text: "", targets: [1] },
      { op: "add" as const, text: "Something nobody proposed.", targets: [] },
    ];
    expect(attributePlan(plan, proposals)).toEqual(["hindsight", "contrast", "hindsight", "contrast", "contrast"]);
  });

  it("reads a lesson's origin from its latest change", () => {
    expect(originOf({ lineage: [{ op: "start" }] })).toBeUndefined();
    expect(originOf({ lineage: [{ op: "add", epoch: 0, step: 0 }] })).toBe("contrast");
    expect(
      originOf({
        lineage: [
          { op: "add", epoch: 0, step: 0 },
          { op: "modify", epoch: 1, step: 0, provenance: "hindsight" },
        ],
      }),
    ).toBe("hindsight");
  });
});
