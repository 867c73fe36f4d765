import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createEmbedder, EmbedderConfigError, resetEmbedderCache } from "../../src/adapters/embedder-factory";
import { SemanticEmbedder } from "../../src/adapters/embedders/semantic";
import { OpenAiEmbedder } from "../../src/adapters/embedders/openai";
import { WorkersAiEmbedder } from "../../src/adapters/embedders/workers-ai";
import type { Env } from "../../src/env";

/** Only the variables the factory reads; the rest of Env is irrelevant here. */
const envOf = (vars: Partial<Env>): Env => vars as Env;
const fakeAi = () =>
  ({ run: async (_m: string, i: { text: string[] }) => ({ data: i.text.map(() => new Array(384).fill(1)) }) }) as unknown as Ai;

beforeEach(() => resetEmbedderCache());
afterEach(() => vi.restoreAllMocks());

describe("createEmbedder", () => {
  it("defaults to the offline semantic embedder when nothing is configured", () => {
    const e = createEmbedder(envOf({}));
    expect(e).toBeInstanceOf(SemanticEmbedder);
    expect(createEmbedder(envOf({ EMBEDDER: "hash" })).model).toBe("hash:praxis-hash-v1:384");
  });

  it("treats a blank EMBEDDER as unset", () => {
    expect(createEmbedder(envOf({ EMBEDDER: " " })).provider).toBe("semantic");
  });

  it("reuses one instance per configuration and separates different ones", () => {
    const env = envOf({ EMBEDDER: "hash" });
    expect(createEmbedder(env)).toBe(createEmbedder(env));
    const small = createEmbedder(env, { provider: "hash", dims: 64 });
    expect(small).not.toBe(createEmbedder(env));
    expect(small.model).toBe("hash:praxis-hash-v1:64");
    expect(createEmbedder(env, { provider: "hash", dims: 64 })).toBe(small);
  });

  it("builds an openai embedder from the EMBEDDING_* variables and calls that endpoint", async () => {
    const seen: { url: string; auth: string | null; model: string }[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const req = new Request(input as RequestInfo, init);
      const body = (await req.json()) as { model: string; input: string[] };
      seen.push({ url: req.url, auth: req.headers.get("authorization"), model: body.model });
      return Response.json({
        object: "list",
        data: body.input.map((_, index) => ({ object: "embedding", index, embedding: new Array(3072).fill(1) })),
        model: body.model,
      });
    });
    const e = createEmbedder(
      envOf({
        EMBEDDER: "openai",
        EMBEDDING_BASE_URL: "https://emb.example.test/v1",
        EMBEDDING_API_KEY: "emb-key",
        EMBEDDING_MODEL: "text-embedding-3-large",
        LLM_BASE_URL: "https://llm.example.test/v1",
        LLM_API_KEY: "llm-key",
      }),
    );
    expect(e).toBeInstanceOf(OpenAiEmbedder);
    expect(e.model).toBe("openai:text-embedding-3-large");
    expect(e.dims).toBe(3072);
    await e.embed(["x"]);
    expect(seen).toEqual([{ url: "https://emb.example.test/v1/embeddings", auth: "Bearer emb-key", model: "text-embedding-3-large" }]);
  });

  it("falls back to the LLM endpoint and key, and to text-embedding-3-small", async () => {
    const urls: string[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const req = new Request(input as RequestInfo, init);
      urls.push(`${req.url} ${req.headers.get("authorization")}`);
      return Response.json({ object: "list", data: [{ object: "embedding", index: 0, embedding: new Array(1536).fill(1) }], model: "m" });
    });
    const e = createEmbedder(envOf({ EMBEDDER: "openai", LLM_BASE_URL: "https://llm.example.test/v1", LLM_API_KEY: "llm-key" }));
    expect(e.model).toBe("openai:text-embedding-3-small");
    await e.embed(["x"]);
    expect(urls).toEqual(["https://llm.example.test/v1/embeddings Bearer llm-key"]);
  });

  it("lets an override pick the provider, model and dims", () => {
    const env = envOf({ EMBEDDER: "hash", EMBEDDING_BASE_URL: "https://emb.example.test/v1", EMBEDDING_API_KEY: "k" });
    const e = createEmbedder(env, { provider: "openai", model: "text-embedding-3-small", dims: 512 });
    expect(e).toBeInstanceOf(OpenAiEmbedder);
    expect(e.model).toBe("openai:text-embedding-3-small:512");
    expect(e.dims).toBe(512);
  });

  it("does not carry EMBEDDING_MODEL over to a provider it was not written for", () => {
    const env = envOf({
      EMBEDDER: "openai",
      EMBEDDING_MODEL: "text-embedding-3-large",
      EMBEDDING_BASE_URL: "https://x.test/v1",
      EMBEDDING_API_KEY: "k",
      AI: fakeAi(),
    });
    const e = createEmbedder(env, { provider: "workers-ai" });
    expect(e.model).toBe("workers-ai:@cf/baai/bge-small-en-v1.5");
  });

  it("builds a workers-ai embedder over the AI binding", async () => {
    const ai = fakeAi();
    const e = createEmbedder(envOf({ EMBEDDER: "workers-ai", AI: ai }));
    expect(e).toBeInstanceOf(WorkersAiEmbedder);
    expect(e.model).toBe("workers-ai:@cf/baai/bge-small-en-v1.5");
    expect((await e.embed(["x"]))[0]).toHaveLength(384);
    expect(createEmbedder(envOf({ EMBEDDER: "workers-ai", AI: ai }))).toBe(e);
    // A different binding object gets its own instance, never one bound to a stale binding.
    expect(createEmbedder(envOf({ EMBEDDER: "workers-ai", AI: fakeAi() }))).not.toBe(e);
  });

  it("explains a missing AI binding", () => {
    const run = () => createEmbedder(envOf({ EMBEDDER: "workers-ai" }));
    expect(run).toThrow(EmbedderConfigError);
    expect(run).toThrow(/AI binding/);
  });

  it("explains a missing openai endpoint or key, naming the variables to set", () => {
    expect(() => createEmbedder(envOf({ EMBEDDER: "openai", EMBEDDING_API_KEY: "k" }))).toThrow(/EMBEDDING_BASE_URL \(or LLM_BASE_URL\)/);
    expect(() => createEmbedder(envOf({ EMBEDDER: "openai", EMBEDDING_BASE_URL: "https://x.test/v1" }))).toThrow(
      /EMBEDDING_API_KEY \(or LLM_API_KEY\)/,
    );
    expect(() => createEmbedder(envOf({}), { provider: "openai" })).toThrow(/from the agent's embedder settings/);
  });

  it("rejects an unknown provider name", () => {
    expect(() => createEmbedder(envOf({ EMBEDDER: "cohere" }))).toThrow(/unknown embedder "cohere".*hash, semantic, openai, workers-ai/);
  });

  it("takes EMBEDDING_DIMS as the size of EMBEDDING_MODEL, for models outside the built-in table", () => {
    const vars = {
      EMBEDDER: "openai",
      EMBEDDING_MODEL: "nomic-embed-text",
      EMBEDDING_BASE_URL: "http://ollama.test/v1",
      EMBEDDING_API_KEY: "k",
    };
    expect(createEmbedder(envOf(vars)).dims).toBe(0);
    const declared = createEmbedder(envOf({ ...vars, EMBEDDING_DIMS: "768" }));
    expect(declared.dims).toBe(768);
    // Not a shortened size of a known model, so the vector space keeps the model's own name.
    expect(declared.model).toBe("openai:nomic-embed-text");
    // It belongs to EMBEDDING_MODEL: an agent naming another model does not inherit it.
    expect(createEmbedder(envOf({ ...vars, EMBEDDING_DIMS: "768" }), { provider: "openai", model: "mxbai-embed-large" }).dims).toBe(0);
  });

  it("names EMBEDDING_DIMS when it is not a usable size", () => {
    for (const bad of ["lots", "0", "7", "4097", "1e3", "768.5"]) {
      let thrown: unknown;
      try {
        createEmbedder(envOf({ EMBEDDING_DIMS: bad }));
      } catch (err) {
        thrown = err;
      }
      expect(thrown, bad).toBeInstanceOf(EmbedderConfigError);
      expect((thrown as EmbedderConfigError).settings).toEqual(["EMBEDDING_DIMS"]);
    }
  });

  it("names the settings to fix in every configuration error", () => {
    const settingsOf = (run: () => unknown) => {
      try {
        run();
      } catch (err) {
        return (err as EmbedderConfigError).settings;
      }
      return null;
    };
    expect(settingsOf(() => createEmbedder(envOf({ EMBEDDER: "cohere" })))).toEqual(["EMBEDDER"]);
    expect(settingsOf(() => createEmbedder(envOf({ EMBEDDER: "openai" })))).toEqual(["EMBEDDING_BASE_URL", "LLM_BASE_URL"]);
    expect(settingsOf(() => createEmbedder(envOf({}), { provider: "workers-ai" }))).toEqual(["AI", "embedder"]);
  });
});
