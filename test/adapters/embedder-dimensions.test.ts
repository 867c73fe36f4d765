import { beforeEach, describe, expect, it } from "vitest";
import { configuredDimensions } from "../../src/adapters/embedder-dimensions";
import { createEmbedder, EmbedderConfigError, resetEmbedderCache } from "../../src/adapters/embedder-factory";
import type { Env } from "../../src/env";

const envOf = (vars: Partial<Env>): Env => vars as Env;
const fakeAi = { run: async () => ({ data: [] }) } as unknown as Ai;
const endpoint = { EMBEDDING_BASE_URL: "https://embeddings.example/v1", EMBEDDING_API_KEY: "sk-test" };

beforeEach(() => resetEmbedderCache());

describe("configuredDimensions: the index size of the deployment's embedder, before the Worker runs", () => {
  it.each([
    ["nothing set (semantic)", {}, 100],
    ["hash", { EMBEDDER: "hash" }, 384],
    ["hash at EMBEDDING_DIMS", { EMBEDDER: "hash", EMBEDDING_DIMS: "64" }, 64],
    ["workers-ai", { EMBEDDER: "workers-ai", AI: fakeAi }, 384],
    ["workers-ai bge-base", { EMBEDDER: "workers-ai", EMBEDDING_MODEL: "@cf/baai/bge-base-en-v1.5", AI: fakeAi }, 768],
    ["openai", { EMBEDDER: "openai", ...endpoint }, 1536],
    ["openai large", { EMBEDDER: "openai", EMBEDDING_MODEL: "text-embedding-3-large", ...endpoint }, 3072],
    ["openai shortened", { EMBEDDER: "openai", EMBEDDING_DIMS: "512", ...endpoint }, 512],
  ] as [string, Record<string, unknown>, number][])("%s: %i, the size the embedder the Worker builds reports", (_, vars, dims) => {
    expect(configuredDimensions(vars)).toBe(dims);
    expect(createEmbedder(envOf(vars as Partial<Env>)).dims).toBe(dims);
  });

  it("needs no endpoint or binding to know a size (provisioning runs before either exists)", () => {
    expect(configuredDimensions({ EMBEDDER: "openai" })).toBe(1536);
    expect(configuredDimensions({ EMBEDDER: "workers-ai" })).toBe(384);
  });

  it("refuses when only the endpoint could tell, or when the setting is not a size", () => {
    expect(() => configuredDimensions({ EMBEDDER: "openai", EMBEDDING_MODEL: "nomic-embed-text" })).toThrow(/set EMBEDDING_DIMS/);
    expect(configuredDimensions({ EMBEDDER: "openai", EMBEDDING_MODEL: "nomic-embed-text", EMBEDDING_DIMS: "768" })).toBe(768);
    expect(() => configuredDimensions({ EMBEDDER: "hash", EMBEDDING_DIMS: "many" })).toThrow(EmbedderConfigError);
    expect(() => configuredDimensions({ EMBEDDER: "semantic", EMBEDDING_DIMS: "384" })).toThrow(/100 dimensions, not 384/);
    expect(() => configuredDimensions({ EMBEDDER: "bert" })).toThrow(/unknown embedder/);
  });
});
