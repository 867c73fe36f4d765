import { describe, expect, it } from "vitest";
import { createEmbedder, EmbedderConfigError } from "../../src/adapters/embedder-factory";
import { HASH_SIMILARITY_THRESHOLD, HashEmbedder } from "../../src/adapters/embedders/hash";
import { SEMANTIC_SIMILARITY_THRESHOLD, SemanticEmbedder } from "../../src/adapters/embedders/semantic";
import { DEFAULT_SIMILARITY_THRESHOLD } from "../../src/adapters/embedder";
import { cosine } from "../../src/core/vector-math";
import type { Env } from "../../src/env";

const envOf = (vars: Partial<Env>): Env => vars as Env;

const LEGAL = "Escalate to the legal team immediately when a customer mentions legal action or a lawyer";
const OTHERS = [
  "Close a ticket only after the customer confirms the problem is solved, not after sending the fix",
  "Offer a refund without argument for orders that arrived damaged",
  "Tag every ticket with the product area so recurring problems show up in the weekly report",
];

describe("semantic embedder", () => {
  it("matches a paraphrase that shares no content word, which feature hashing cannot", async () => {
    const query = "the user says they will sue us";
    for (const embedder of [new SemanticEmbedder(), new HashEmbedder()]) {
      const [q, legal, ...others] = await embedder.embed([query, LEGAL, ...OTHERS]);
      const best = Math.max(...others.map((o) => cosine(q!, o)));
      if (embedder instanceof SemanticEmbedder) expect(cosine(q!, legal!)).toBeGreaterThan(best);
      else expect(cosine(q!, legal!)).toBeLessThan(best);
    }
  });

  it("is unit length, deterministic, and gives no signal for text it has no word of", async () => {
    const e = new SemanticEmbedder();
    const [a, b, none] = await e.embed(["retry the request later", "retry the request later", "zzqx ☃"]);
    expect(a!.length).toBe(e.dims);
    expect(Math.hypot(...a!)).toBeCloseTo(1, 5);
    expect([...a!]).toEqual([...b!]);
    expect(none!.every((x) => x === 0)).toBe(true);
  });

  it("is the default, is chosen by name, refuses another size, and declares its own threshold", () => {
    expect(createEmbedder(envOf({}))).toBeInstanceOf(SemanticEmbedder);
    const e = createEmbedder(envOf({ EMBEDDER: "semantic" }));
    expect(e).toBeInstanceOf(SemanticEmbedder);
    expect(e.model).toMatch(/^semantic:glove-sif-\d+:100$/);
    expect(createEmbedder(envOf({ EMBEDDER: "hash" }), { provider: "semantic" })).toBe(e);
    expect(() => createEmbedder(envOf({ EMBEDDER: "semantic", EMBEDDING_DIMS: "384" }))).toThrow(EmbedderConfigError);
    expect(e.similarityThreshold).toBe(SEMANTIC_SIMILARITY_THRESHOLD);
    expect(createEmbedder(envOf({ EMBEDDER: "hash" })).similarityThreshold).toBe(HASH_SIMILARITY_THRESHOLD);
    expect(
      createEmbedder(envOf({ EMBEDDER: "openai", EMBEDDING_BASE_URL: "http://x.test/v1", EMBEDDING_API_KEY: "k" })).similarityThreshold,
    ).toBe(DEFAULT_SIMILARITY_THRESHOLD);
    expect(HASH_SIMILARITY_THRESHOLD).toBeLessThan(DEFAULT_SIMILARITY_THRESHOLD);
  });
});
