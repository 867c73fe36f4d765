import { describe, expect, it } from "vitest";
import { chooseVectorIndex, DEFAULT_LOCAL_INDEX_LIMIT, type VectorIndexFacts } from "../../src/core/vector-index-choice";

const facts: VectorIndexFacts = { setting: "auto", limit: DEFAULT_LOCAL_INDEX_LIMIT, hasBinding: true, memories: 0, switched: false };

describe("chooseVectorIndex", () => {
  it("keeps an auto agent local up to the limit and moves it to Vectorize past it", () => {
    expect(chooseVectorIndex({ ...facts, memories: DEFAULT_LOCAL_INDEX_LIMIT })).toBe("local");
    expect(chooseVectorIndex({ ...facts, memories: DEFAULT_LOCAL_INDEX_LIMIT + 1 })).toBe("vectorize");
    expect(chooseVectorIndex({ ...facts, limit: 3, memories: 3 })).toBe("local");
    expect(chooseVectorIndex({ ...facts, limit: 3, memories: 4 })).toBe("vectorize");
  });

  it("does not move an agent back when it shrinks below the limit", () => {
    expect(chooseVectorIndex({ ...facts, memories: 10, switched: true })).toBe("vectorize");
  });

  it("follows an explicit setting, and stays local without the binding whatever the setting", () => {
    expect(chooseVectorIndex({ ...facts, setting: "local", memories: 10 ** 7 })).toBe("local");
    expect(chooseVectorIndex({ ...facts, setting: "vectorize" })).toBe("vectorize");
    for (const setting of ["auto", "vectorize"] as const)
      expect(chooseVectorIndex({ ...facts, setting, hasBinding: false, memories: 10 ** 7, switched: true })).toBe("local");
  });
});
