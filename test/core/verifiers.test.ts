import { describe, expect, it } from "vitest";
import {
  defaultVerifier,
  extractFinalAnswer,
  isGroupVerifier,
  isRemoteVerifier,
  lastBoxed,
  majorityVerdicts,
  needsGroundTruth,
  verifyAnswer,
  VerifierSchema,
  type LocalVerifierConfig,
  type VerifierConfig,
} from "../../src/core/verifiers";
import { parseNumbers } from "../../src/core/verifiers/numbers";
import { normaliseText } from "../../src/core/verifiers/text";

const cfg = (raw: unknown) => VerifierSchema.parse(raw) as LocalVerifierConfig;
const reward = (config: unknown, answer: string, groundTruth?: string | null) =>
  verifyAnswer(cfg(config), { task: "t", answer, groundTruth }).reward;

describe("extractFinalAnswer", () => {
  it("takes the last \\boxed{} with nested braces", () => {
    expect(extractFinalAnswer("First \\boxed{1}, then \\boxed{\\frac{1}{2}} is it.")).toBe("\\frac{1}{2}");
    expect(lastBoxed("\\boxed{\\sqrt{\\frac{a}{b}} + {c}}")).toBe("\\sqrt{\\frac{a}{b}} + {c}");
    expect(extractFinalAnswer("so $\\boxed 7$")).toBe("7");
  });

  it("ignores a \\boxed{ whose braces never close", () => {
    expect(lastBoxed("\\boxed{2} and \\boxed{3")).toBe("2");
    expect(lastBoxed("no box")).toBeNull();
  });

  it("prefers a box over a Final answer line", () => {
    expect(extractFinalAnswer("\\boxed{4}\nFinal answer: 5")).toBe("4");
  });

  it("takes the last Final answer / Answer / #### line", () => {
    expect(extractFinalAnswer("Reasoning...\nAnswer: 3\nWait, no.\nFinal answer: 4")).toBe("4");
    expect(extractFinalAnswer("Work\n**Final Answer:** Paris.")).toBe("Paris");
    expect(extractFinalAnswer("Natalia sold 48/2 = 24 clips.\n#### 72")).toBe("72");
    expect(extractFinalAnswer("Thus the final answer is $42$.")).toBe("42");
  });

  it("takes the next line when the label stands alone", () => {
    expect(extractFinalAnswer("Final answer:\n\n  `x = 2`\n")).toBe("x = 2");
    expect(extractFinalAnswer("Work.\n\n## Final Answer\n\n42\n")).toBe("42");
  });

  it("reads chain-of-thought endings up to the end of their sentence", () => {
    expect(extractFinalAnswer("So 3 + 4 = 7. The answer is 7. Done.")).toBe("7");
    expect(extractFinalAnswer("Final Answer: The final answer is $3.5$. I hope it is correct.")).toBe("3.5");
  });

  it("does not treat prose mentioning an answer as an answer line", () => {
    expect(extractFinalAnswer("The short answer: no idea")).toBe("The short answer: no idea");
  });

  it("falls back to the whole trimmed reply", () => {
    expect(extractFinalAnswer("  just this  \n")).toBe("just this");
  });
});

describe("exact", () => {
  it("folds case, whitespace and punctuation", () => {
    expect(reward({ kind: "exact" }, "  Hello,   WORLD! ", "hello world")).toBe(1);
    expect(reward({ kind: "exact" }, "well-known", "Well known")).toBe(1);
    expect(reward({ kind: "exact" }, "Don't", "dont")).toBe(1);
    expect(reward({ kind: "exact" }, "Reasoning.\nFinal answer: Paris", "paris")).toBe(1);
  });

  it("fails on different words and keeps decimal points", () => {
    expect(reward({ kind: "exact" }, "Lyon", "Paris")).toBe(0);
    expect(reward({ kind: "exact" }, "3.14", "314")).toBe(0);
    expect(reward({ kind: "exact" }, "Paris, France", "Paris")).toBe(0);
    expect(normaliseText("3.14.")).toBe("3.14");
  });
});

describe("contains", () => {
  it("ignores case by default and collapses whitespace", () => {
    expect(reward({ kind: "contains" }, "The capital is\n  PARIS, of course", "capital is paris")).toBe(1);
    expect(reward({ kind: "contains" }, "The capital is Lyon", "Paris")).toBe(0);
  });

  it("respects caseSensitive", () => {
    expect(reward({ kind: "contains", caseSensitive: true }, "PARIS", "Paris")).toBe(0);
    expect(reward({ kind: "contains", caseSensitive: true }, "in Paris", "Paris")).toBe(1);
  });
});

describe("regex", () => {
  it("matches the whole reply or its final answer, and needs no ground truth", () => {
    expect(reward({ kind: "regex", pattern: "^\\d+$" }, "I think\nFinal answer: 42", null)).toBe(1);
    expect(reward({ kind: "regex", pattern: "colou?r", flags: "i" }, "The COLOR red", null)).toBe(1);
    expect(reward({ kind: "regex", pattern: "^\\d+$" }, "Final answer: forty-two", null)).toBe(0);
  });

  it("rejects an invalid pattern or flags in the configuration", () => {
    expect(VerifierSchema.safeParse({ kind: "regex", pattern: "(" }).success).toBe(false);
    expect(VerifierSchema.safeParse({ kind: "regex", pattern: "a", flags: "g" }).success).toBe(false);
  });
});

describe("numeric", () => {
  const n = { kind: "numeric" };
  it("reads units, currency, thousands separators and signs", () => {
    expect(reward(n, "1,234.5 kg", "1234.5")).toBe(1);
    expect(reward(n, "It costs $1,234,567.", "1234567")).toBe(1);
    expect(reward(n, "−12 °C", "-12")).toBe(1);
    expect(reward(n, "-12", "12")).toBe(0);
    expect(reward(n, "1\u202F234\u202F567", "1234567")).toBe(1);
  });

  it("reads fractions, mixed numbers and scientific notation", () => {
    expect(reward(n, "3/4", "0.75")).toBe(1);
    expect(reward(n, "-3/4", "0.75")).toBe(0);
    expect(reward(n, "1 1/2 cups", "1.5")).toBe(1);
    expect(reward(n, "1.5e3", "1500")).toBe(1);
    expect(reward(n, "6.02 × 10^23", "6.02e23")).toBe(1);
    expect(reward(n, "2.5E-3", "0.0025")).toBe(1);
    expect(reward(n, ".5", "0.5")).toBe(1);
  });

  it("reads 50% as 0.5 and, with a percent sign on one side only, also as 50", () => {
    expect(reward(n, "50%", "0.5")).toBe(1);
    expect(reward(n, "50%", "50")).toBe(1);
    expect(reward(n, "50 percent", "50%")).toBe(1);
    expect(reward(n, "50%", "5%")).toBe(0);
    expect(reward(n, "50%", "0.05")).toBe(0);
    expect(parseNumbers("50%")).toEqual([{ value: 0.5, percent: true, raw: "50%" }]);
  });

  it("takes the last number of the final answer", () => {
    expect(reward(n, "Step 1 gives 10, step 2 gives 12.\nFinal answer: 12", "12")).toBe(1);
    expect(reward(n, "12 then 13", "12")).toBe(0);
  });

  it("applies absolute and relative tolerance", () => {
    expect(reward(n, "3.1416", "3.14159265")).toBe(0);
    expect(reward({ ...n, absTol: 0.001 }, "3.1416", "3.14159265")).toBe(1);
    expect(reward({ ...n, relTol: 0.01 }, "1010", "1000")).toBe(1);
    expect(reward({ ...n, relTol: 0.01 }, "1020", "1000")).toBe(0);
  });

  it("fails clearly when a side has no number", () => {
    expect(verifyAnswer(cfg(n), { task: "t", answer: "no idea", groundTruth: "4" }).reasoning).toMatch(/contains no number/);
    const v = verifyAnswer(cfg(n), { task: "t", answer: "4", groundTruth: "four" });
    expect(v).toMatchObject({ reward: 0 });
    expect(v.reasoning).toMatch(/ground truth .* contains no number/);
  });
});

describe("math", () => {
  const m = { kind: "math" };
  it("compares boxed fractions numerically", () => {
    expect(reward(m, "So the probability is \\boxed{\\frac{1}{2}}.", "0.5")).toBe(1);
    expect(reward(m, "\\boxed{\\dfrac{3}{4}}", "\\tfrac34")).toBe(1);
    expect(reward(m, "\\boxed{\\frac{1}{3}}", "0.5")).toBe(0);
  });

  it("normalises roots, \\left( \\right), \\cdot, powers and \\pi", () => {
    expect(reward(m, "\\boxed{2\\sqrt{2}}", "\\sqrt{8}")).toBe(1);
    expect(reward(m, "\\boxed{\\sqrt[3]{27}}", "3")).toBe(1);
    expect(reward(m, "$\\left(\\frac{1}{2}\\right)^{2} \\cdot 4$", "1")).toBe(1);
    expect(reward(m, "\\boxed{2\\pi}", "6.283185307")).toBe(1);
    expect(reward(m, "\\boxed{\\frac{\\pi}{2}}", "\\pi")).toBe(0);
    expect(reward(m, "Final answer: $2^{10}$", "1024")).toBe(1);
  });

  it("ignores a variable name, units in \\text and degree marks", () => {
    expect(reward(m, "\\boxed{x = 5}", "5")).toBe(1);
    expect(reward(m, "\\boxed{12\\text{ cm}}", "12")).toBe(1);
    expect(reward(m, "\\boxed{90^\\circ}", "90")).toBe(1);
    expect(reward(m, "\\boxed{25\\%}", "0.25")).toBe(1);
    expect(reward(m, "\\boxed{\\$5}", "5")).toBe(1);
  });

  it("reads the ground truth's own box (a worked solution)", () => {
    expect(reward(m, "Final answer: 0.25", "We get $\\boxed{\\frac14}$.")).toBe(1);
  });

  it("compares tuples element by element", () => {
    expect(reward(m, "\\boxed{\\left(1, \\frac{1}{2}\\right)}", "(1, 0.5)")).toBe(1);
    expect(reward(m, "\\boxed{(1, 2)}", "(2, 1)")).toBe(0);
    expect(reward(m, "\\boxed{(1, 2)}", "[1, 2]")).toBe(0);
  });

  it("compares expressions by evaluating them", () => {
    expect(reward(m, "\\boxed{x+1}", "1+x")).toBe(1);
    expect(reward(m, "\\boxed{2(x+1)}", "2x+2")).toBe(1);
    expect(reward(m, "\\boxed{a-b}", "a+b")).toBe(0);
    expect(reward(m, "\\boxed{x^2}", "y^2")).toBe(0);
  });

  it("falls back to the normalised text for what it cannot evaluate", () => {
    expect(reward(m, "\\boxed{\\text{(B)}}", "(B)")).toBe(1);
    expect(reward(m, "\\boxed{\\sin x}", "\\sin  x")).toBe(1);
    expect(reward(m, "\\boxed{\\sin x}", "\\cos x")).toBe(0);
  });

  it("applies tolerance", () => {
    expect(reward(m, "\\boxed{3.14}", "\\pi")).toBe(0);
    expect(reward({ ...m, absTol: 0.01 }, "\\boxed{3.14}", "\\pi")).toBe(1);
  });
});

describe("json", () => {
  const deep = { kind: "json" };
  const subset = { kind: "json", mode: "subset" };
  it("ignores key order and finds JSON in prose or a fence", () => {
    expect(reward(deep, '{"b": [1, 2], "a": {"y": 2, "x": 1}}', '{"a": {"x": 1, "y": 2}, "b": [1, 2]}')).toBe(1);
    expect(reward(deep, 'Here you go:\n```json\n{"a": 1,}\n```\nDone.', '{"a": 1}')).toBe(1);
  });

  it("deep mode rejects extra keys, different values and reordered arrays", () => {
    expect(verifyAnswer(cfg(deep), { task: "t", answer: '{"a": 1, "b": 2}', groundTruth: '{"a": 1}' }).reasoning).toMatch(
      /\$\.b: not expected/,
    );
    expect(verifyAnswer(cfg(deep), { task: "t", answer: '{"a": {"x": 2}}', groundTruth: '{"a": {"x": 1}}' }).reasoning).toMatch(
      /\$\.a\.x: expected 1/,
    );
    expect(reward(deep, "[2, 1]", "[1, 2]")).toBe(0);
    expect(reward(deep, '{"a": "1"}', '{"a": 1}')).toBe(0);
  });

  it("subset mode allows extra keys at any depth but not missing ones", () => {
    expect(reward(subset, '{"a": {"x": 1, "extra": true}, "b": 2}', '{"a": {"x": 1}}')).toBe(1);
    expect(verifyAnswer(cfg(subset), { task: "t", answer: '{"a": {}}', groundTruth: '{"a": {"x": 1}}' }).reasoning).toMatch(
      /\$\.a\.x: missing/,
    );
    expect(reward(subset, '[{"id": 1, "n": "a"}]', '[{"id": 1}, {"id": 2}]')).toBe(0);
  });

  it("fails when the answer has no JSON or the ground truth is not JSON", () => {
    expect(verifyAnswer(cfg(deep), { task: "t", answer: "no json here", groundTruth: "{}" }).reasoning).toMatch(/no JSON/);
    expect(verifyAnswer(cfg(deep), { task: "t", answer: "{}", groundTruth: "{oops" }).reasoning).toMatch(/ground truth is not valid JSON/);
  });
});

describe("ground truth", () => {
  it("scores 0 with a reason when a kind needs one and the task has none", () => {
    for (const kind of ["exact", "contains", "numeric", "math", "json"]) {
      for (const gt of [null, undefined, "  "]) {
        const v = verifyAnswer(cfg({ kind }), { task: "t", answer: "x", groundTruth: gt });
        expect(v.reward).toBe(0);
        expect(v.reasoning).toMatch(new RegExp(`${kind} verifier .* this task has none`));
      }
    }
  });

  it("needsGroundTruth names exactly the comparing kinds", () => {
    const all: VerifierConfig[] = [
      { kind: "exact" },
      { kind: "contains", caseSensitive: false },
      { kind: "regex", pattern: "a" },
      { kind: "numeric" },
      { kind: "math" },
      { kind: "json", mode: "deep" },
      { kind: "llm-judge", passThreshold: 0.5 },
      { kind: "majority" },
      { kind: "webhook", url: "https://example.com/v", timeoutMs: 1000 },
    ];
    expect(all.filter(needsGroundTruth).map((c) => c.kind)).toEqual(["exact", "contains", "numeric", "math", "json"]);
    expect(all.filter(isGroupVerifier).map((c) => c.kind)).toEqual(["majority"]);
    expect(all.filter(isRemoteVerifier).map((c) => c.kind)).toEqual(["llm-judge", "webhook"]);
  });

  it("defaults to exact with ground truth and majority without", () => {
    expect(defaultVerifier(true)).toEqual({ kind: "exact" });
    expect(defaultVerifier(false)).toEqual({ kind: "majority" });
  });
});

describe("majorityVerdicts", () => {
  it("rewards the answers that agree with the plurality", () => {
    const v = majorityVerdicts(["Final answer: 42", "\\boxed{42}", "41", "forty", "42.0"]);
    expect(v.map((x) => x.reward)).toEqual([1, 1, 0, 0, 1]);
    expect(v[0]!.reasoning).toMatch(/majority answer "42" \(3 of 5 votes\)/);
    expect(v[2]!.reasoning).toMatch(/^Differs/);
  });

  it("votes numbers together however they are written", () => {
    expect(majorityVerdicts(["\\boxed{\\frac{1}{2}}", "0.5", "1/2 kg", "0.4"]).map((x) => x.reward)).toEqual([1, 1, 1, 0]);
    expect(majorityVerdicts(["Paris.", "paris", "Lyon"]).map((x) => x.reward)).toEqual([1, 1, 0]);
  });

  it("gives everyone 0 on a tie at the top", () => {
    const v = majorityVerdicts(["a", "a", "b", "b", "c"]);
    expect(v.map((x) => x.reward)).toEqual([0, 0, 0, 0, 0]);
    expect(v[0]!.reasoning).toMatch(/No majority: "a", "b" have 2 of 5 votes each/);
    expect(majorityVerdicts(["1", "2", "3"]).map((x) => x.reward)).toEqual([0, 0, 0]);
  });

  it("never lets blank answers vote", () => {
    expect(majorityVerdicts(["", " ", "", "7"]).map((x) => x.reward)).toEqual([0, 0, 0, 1]);
    expect(majorityVerdicts(["", ""]).every((x) => x.reward === 0)).toBe(true);
  });

  it("uses a caller's normaliser", () => {
    expect(majorityVerdicts(["A1", "a2", "B1"], (s) => s[0]!.toLowerCase()).map((x) => x.reward)).toEqual([1, 1, 0]);
  });
});
