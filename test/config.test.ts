import { describe, expect, it } from "vitest";
import { DEPLOYMENT_VARIABLES, derivedEnv, LLM_VARIABLES, variableProblems, variables } from "../src/config";
import { DEFAULT_LOCAL_INDEX_LIMIT } from "../src/core/vector-index-choice";

describe("the deployment's variables (src/config.ts)", () => {
  it("applies the defaults when nothing is set, and reads a blank value as unset", () => {
    const v = variables({ MAX_BODY_BYTES: "  ", VECTOR_INDEX: "" });
    expect(v).toMatchObject({
      LOG_LEVEL: "info",
      MAX_BODY_BYTES: 1_048_576,
      EPISODE_TTL_MINUTES: 60,
      ADMISSION_MODE: "filter",
      VECTOR_INDEX: "local",
      LOCAL_INDEX_LIMIT: DEFAULT_LOCAL_INDEX_LIMIT,
      PRACTICE_MAX_RUNS_PER_TENANT: 4,
      EVALUATION_MAX_PER_TENANT: 8,
      DAILY_TOKEN_BUDGET: 0,
      EMBEDDER: "semantic",
      LLM_PRICES: {},
    });
    expect(v.LLM_BASE_URL).toBeUndefined();
    expect(variableProblems({}, [...DEPLOYMENT_VARIABLES, ...LLM_VARIABLES])).toEqual([]);
  });

  it("parses numbers, choices and the price table, trimmed", () => {
    const v = variables({
      LOCAL_INDEX_LIMIT: " 250000 ",
      VECTOR_INDEX: "auto",
      ADMISSION_MODE: " review ",
      LLM_BASE_URL: "https://llm.test/v1//",
      LLM_PRICES: '{"m": {"input": 1, "output": 2}}',
    });
    expect([v.LOCAL_INDEX_LIMIT, v.VECTOR_INDEX, v.ADMISSION_MODE, v.LLM_BASE_URL, v.LLM_PRICES]).toEqual([
      250_000,
      "auto",
      "review",
      "https://llm.test/v1",
      { m: { input: 1, output: 2 } },
    ]);
  });

  it("names each invalid variable and what it must be; the value reads as its default", () => {
    for (const bad of ["0", "-5", "1.5", "lots"]) {
      const env = { LOCAL_INDEX_LIMIT: bad, VECTOR_INDEX: "vectorise" };
      expect(variables(env).LOCAL_INDEX_LIMIT).toBe(DEFAULT_LOCAL_INDEX_LIMIT);
      expect(variableProblems(env, DEPLOYMENT_VARIABLES)).toEqual([
        `VECTOR_INDEX must be one of local, vectorize, auto (got "vectorise")`,
        `LOCAL_INDEX_LIMIT must be a whole number from 1 to 100000000 (got "${bad}")`,
      ]);
    }
    expect(variableProblems({ LLM_PRICES: '{"m": {"input": "cheap", "output": 1}}' }, LLM_VARIABLES)).toEqual([
      expect.stringMatching(/^LLM_PRICES\.m\.input: /),
    ]);
  });

  it("reads a number from wrangler.toml as its text, and never repeats a secret in a problem", () => {
    expect(variables({ MAX_BODY_BYTES: 2048 }).MAX_BODY_BYTES).toBe(2048);
    const problems = variableProblems({ LLM_API_KEY: { key: "sk-live-secret" } }, LLM_VARIABLES);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^LLM_API_KEY /);
    expect(problems[0]).not.toContain("sk-live-secret");
  });

  it("parses an environment once, and an environment derived from it shares that parse", () => {
    const env = { MAX_BODY_BYTES: "2048" };
    expect(variables(env)).toBe(variables(env));
    const derived = derivedEnv(env, { ...env, DB: {} });
    expect(variables(derived)).toBe(variables(env));
    expect(variables({ ...env })).not.toBe(variables(env));
  });
});
