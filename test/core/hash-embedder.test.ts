import { describe, expect, it } from "vitest";
import { HASH_DIMS, HASH_EMBEDDER_MODEL, hash32, hashEmbed, tokenize } from "../../src/core/hash-embedder";
import { cosine } from "../../src/core/vector-math";

const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const sim = (a: string, b: string) => cosine(hashEmbed(a), hashEmbed(b));

const PARAPHRASES: [string, string][] = [
  [
    "Retry the request with exponential backoff when the API returns 429",
    "When the API returns a 429, retry the request using exponential backoff",
  ],
  ["Always validate user input before writing it to the database", "Validate all user inputs before they are written to the database"],
  ["The deployment failed because the configuration file was missing", "Deployment failed: the config file was missing"],
  ["Check the unit tests before merging a pull request", "Before merging pull requests, check that unit tests pass"],
  ["cache the embeddings to avoid recomputing them", "avoid recomputing embeddings by caching them"],
];

const UNRELATED: [string, string][] = [
  ["Retry the request with exponential backoff when the API returns 429", "The cat sat on the warm windowsill all afternoon"],
  ["Always validate user input before writing it to the database", "Photosynthesis converts sunlight into chemical energy in plants"],
  ["The deployment failed because the configuration file was missing", "She bought fresh vegetables at the farmers market on Sunday"],
  ["Check the unit tests before merging a pull request", "The history of the Roman empire spans many centuries"],
  // Function words only in common: the stopword weighting is what keeps this low.
  ["the cat is on the mat", "the dog is in the house"],
];

describe("hashEmbed", () => {
  it("exports its model identity", () => {
    expect(HASH_EMBEDDER_MODEL).toBe("praxis-hash-v1");
    expect(HASH_DIMS).toBe(384);
    expect(hashEmbed("hello").length).toBe(384);
    expect(hashEmbed("hello", 64).length).toBe(64);
  });

  it("is deterministic", () => {
    const a = hashEmbed("Deterministic feature hashing, 42 times");
    const b = hashEmbed("Deterministic feature hashing, 42 times");
    expect([...a]).toEqual([...b]);
  });

  it("pins the hash and a vector, so any change forces a new model name", () => {
    // If these fail, stored vectors no longer match new ones: bump HASH_EMBEDDER_MODEL.
    expect(hash32("")).toBe(2872998923);
    expect(hash32("a")).toBe(444641715);
    const v = hashEmbed("Retry with backoff");
    const nonzero = [...v].map((x, i) => [i, x] as const).filter(([, x]) => x !== 0);
    expect(nonzero.length).toBe(20);
    expect(nonzero[0]![0]).toBe(30);
    expect(nonzero[0]![1]).toBeCloseTo(0.446375, 5);
    expect(nonzero[1]![0]).toBe(44);
    expect(nonzero[1]![1]).toBeCloseTo(-0.17855, 5);
  });

  it("is unit length for non-empty text", () => {
    for (const t of ["a", "hello world", "Ünïcødé 東京 42", PARAPHRASES[0]![0]]) {
      expect(norm(hashEmbed(t))).toBeCloseTo(1, 5);
    }
  });

  it("maps empty and punctuation-only text to the zero vector", () => {
    for (const t of ["", "   ", "?!... --- ;;"]) {
      const v = hashEmbed(t);
      expect(v.every((x) => x === 0)).toBe(true);
      expect(cosine(v, hashEmbed("anything"))).toBe(0);
    }
  });

  it("gives identical text cosine 1 and ignores case and punctuation", () => {
    expect(sim("Same text here", "Same text here")).toBeCloseTo(1, 5);
    expect(sim("Hello, World!", "hello world")).toBeCloseTo(1, 5);
  });

  it("scores paraphrases well above unrelated sentences", () => {
    const para = PARAPHRASES.map(([a, b]) => sim(a, b));
    const unrel = UNRELATED.map(([a, b]) => sim(a, b));
    // Measured minimum ≈ 0.60 and maximum ≈ 0.12; thresholds leave margin on both sides.
    for (const s of para) expect(s).toBeGreaterThan(0.5);
    for (const s of unrel) expect(s).toBeLessThan(0.25);
  });

  it("ranks each anchor's paraphrase above every other sentence", () => {
    for (const [anchor, paraphrase] of PARAPHRASES) {
      const target = sim(anchor, paraphrase);
      for (const [, other] of [...PARAPHRASES, ...UNRELATED]) {
        if (other === paraphrase || other === anchor) continue;
        expect(target).toBeGreaterThan(sim(anchor, other));
      }
    }
  });

  it("lets inflected forms overlap through character trigrams", () => {
    expect(sim("deploy", "deployed")).toBeGreaterThan(0.3);
    expect(sim("deploy", "banana")).toBeLessThan(0.15);
  });

  it("keeps word order information through bigrams", () => {
    const reordered = sim("retry the request", "request the retry");
    expect(reordered).toBeLessThan(0.99);
    expect(reordered).toBeGreaterThan(0.6);
  });

  it("rejects invalid dimensions", () => {
    expect(() => hashEmbed("x", 0)).toThrow(RangeError);
    expect(() => hashEmbed("x", 1.5)).toThrow(RangeError);
  });
});

describe("tokenize", () => {
  it("splits on non letter/digit runs, lowercases, and applies NFKC", () => {
    expect(tokenize("Hello, WORLD! it's 2024")).toEqual(["hello", "world", "it", "s", "2024"]);
    expect(tokenize("ＡＢＣ１２")).toEqual(["abc12"]);
    expect(tokenize("über-Größe 東京")).toEqual(["über", "größe", "東京"]);
  });
});
