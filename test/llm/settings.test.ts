import { describe, expect, it } from "vitest";
import { costUsd, LlmSettingsError, loadLlmSettings, modelFor, PLACEHOLDER_API_KEY } from "../../src/llm/settings";

const base = { LLM_BASE_URL: "http://localhost:11434/v1/", LLM_MODEL: "llama3.1" };

describe("loadLlmSettings", () => {
  it("returns null unless both LLM_BASE_URL and LLM_MODEL are set", () => {
    expect(loadLlmSettings({})).toBeNull();
    expect(loadLlmSettings({ LLM_BASE_URL: "https://api.openai.com/v1" })).toBeNull();
    expect(loadLlmSettings({ LLM_MODEL: "gpt-4o-mini", LLM_API_KEY: "sk-x" })).toBeNull();
    expect(loadLlmSettings({ LLM_BASE_URL: "  ", LLM_MODEL: "m" })).toBeNull();
  });

  it("applies defaults and a placeholder key for keyless local servers", () => {
    const s = loadLlmSettings(base)!;
    expect(s).toMatchObject({
      baseUrl: "http://localhost:11434/v1",
      apiKey: PLACEHOLDER_API_KEY,
      model: "llama3.1",
      timeoutMs: 60000,
      maxConcurrency: 4,
      maxRetries: 3,
      structuredOutput: "json_schema",
      prices: {},
    });
    expect(modelFor(s, "judge")).toBe("llama3.1");
  });

  it("uses per-role model overrides and explicit values", () => {
    const s = loadLlmSettings({
      ...base,
      LLM_API_KEY: "sk-real",
      LLM_MODEL_JUDGE: "judge-model",
      LLM_MODEL_LEARNER: "learner-model",
      LLM_TIMEOUT_MS: "1500",
      LLM_MAX_CONCURRENCY: "9",
      LLM_MAX_RETRIES: "0",
      LLM_STRUCTURED_OUTPUT: "json_object",
    })!;
    expect(s.apiKey).toBe("sk-real");
    expect(s.roleModels).toEqual({ policy: "llama3.1", judge: "judge-model", summarizer: "llama3.1", learner: "learner-model" });
    expect([s.timeoutMs, s.maxConcurrency, s.maxRetries, s.structuredOutput]).toEqual([1500, 9, 0, "json_object"]);
  });

  it("parses the price table and prices calls per million tokens", () => {
    const s = loadLlmSettings({ ...base, LLM_PRICES: '{"llama3.1": {"input": 0.5, "output": 1.5}}' })!;
    expect(s.prices["llama3.1"]).toEqual({ input: 0.5, output: 1.5 });
    expect(costUsd(s, "llama3.1", 2_000_000, 1_000_000)).toBeCloseTo(2.5, 10);
    expect(costUsd(s, "unpriced", 1000, 1000)).toBe(0);
  });

  it("fails at load with a message naming each invalid variable", () => {
    const err = (() => {
      try {
        loadLlmSettings({ ...base, LLM_PRICES: "{not json", LLM_STRUCTURED_OUTPUT: "xml", LLM_TIMEOUT_MS: "soon" });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(LlmSettingsError);
    const msg = (err as Error).message;
    expect(msg).toContain("LLM_PRICES is not valid JSON");
    expect(msg).toContain("LLM_STRUCTURED_OUTPUT");
    expect(msg).toContain("LLM_TIMEOUT_MS");
    expect((err as LlmSettingsError).problems).toHaveLength(3);
  });

  it("rejects a price table of the wrong shape and a non-http base URL", () => {
    expect(() => loadLlmSettings({ ...base, LLM_PRICES: '{"m": {"input": "cheap", "output": 1}}' })).toThrow(/LLM_PRICES\.m\.input/);
    expect(() => loadLlmSettings({ ...base, LLM_PRICES: '{"m": {"input": -1, "output": 1}}' })).toThrow(LlmSettingsError);
    expect(() => loadLlmSettings({ ...base, LLM_BASE_URL: "ftp://llm.example" })).toThrow(/LLM_BASE_URL/);
  });
});
