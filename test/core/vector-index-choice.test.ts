import { describe, expect, it } from "vitest";
import { chooseVectorIndex, DEFAULT_LOCAL_INDEX_LIMIT, localIndexLimit } from "../../src/core/vector-index-choice";

const facts = { setting: "auto", limit: undefined, hasBinding: true, memories: 0, switched: false };

describe("chooseVectorIndex", () => {
  it("keeps an auto agent local up to the limit and moves it to Vectorize past it", () => {
    expect(chooseVectorIndex({ ...facts, memories: DEFAULT_LOCAL_INDEX_LIMIT })).toBe("local");
    expect(chooseVectorIndex({ ...facts, memories: DEFAULT_LOCAL_INDEX_LIMIT + 1 })).toBe("vectorize");
    expect(chooseVectorIndex({ ...facts, limit: "3", memories: 3 })).toBe("local");
    expect(chooseVectorIndex({ ...facts, limit: "3", memories: 4 })).toBe("vectorize");
  });

  it("does not move an agent back when it shrinks below the limit", () => {
    expect(chooseVectorIndex({ ...facts, memories: 10, switched: true })).toBe("vectorize");
  });

  it("follows an explicit setting, and stays local without the binding whatever the setting", () => {
    expect(chooseVectorIndex({ ...facts, setting: "local", memories: 10 ** 7 })).toBe("local");
    expect(chooseVectorIndex({ ...facts, setting: undefined, memories: 10 ** 7 })).toBe("local");
    expect(chooseVectorIndex({ ...facts, setting: "vectorize" })).toBe("vectorize");
    for (const setting of ["auto", "vectorize"]) expect(chooseVectorIndex({ ...facts, setting, hasBinding: false, memories: 10 ** 7, switched: true })).toBe("local");
  });

  it("reads LOCAL_INDEX_LIMIT as a positive integer, else the default", () => {
    expect(localIndexLimit("250000")).toBe(250_000);
    for (const bad of [undefined, "", "0", "-5", "1.5", "lots"]) expect(localIndexLimit(bad)).toBe(DEFAULT_LOCAL_INDEX_LIMIT);
  });
});
