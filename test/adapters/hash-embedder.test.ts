import { describe, expect, it } from "vitest";
import { HashEmbedder } from "../../src/adapters/embedders/hash";
import { HASH_DIMS, HASH_EMBEDDER_MODEL, hashEmbed } from "../../src/core/hash-embedder";
import { cosine } from "../../src/core/vector-math";

describe("HashEmbedder", () => {
  it("defaults to the core dimension and names its space with it", () => {
    const e = new HashEmbedder();
    expect(e.provider).toBe("hash");
    expect(e.dims).toBe(HASH_DIMS);
    expect(e.model).toBe(`hash:${HASH_EMBEDDER_MODEL}:${HASH_DIMS}`);
  });

  it("puts a configured dimension into the model id, so different sizes never share a space", async () => {
    const small = new HashEmbedder({ dims: 64 });
    expect(small.model).toBe(`hash:${HASH_EMBEDDER_MODEL}:64`);
    expect(small.model).not.toBe(new HashEmbedder().model);
    const [v] = await small.embed(["retry with backoff"]);
    expect(v).toHaveLength(64);
  });

  it("is deterministic across calls and instances and matches the core function", async () => {
    const texts = ["Retry the request with exponential backoff", "validate input first"];
    const a = await new HashEmbedder().embed(texts);
    const b = await new HashEmbedder().embed(texts);
    expect(a).toEqual(b);
    expect(a[0]).toEqual(hashEmbed(texts[0]!, HASH_DIMS));
    expect(cosine(a[0]!, a[1]!)).toBeLessThan(0.5);
  });

  it("returns one vector per input in order, including none for none", async () => {
    const e = new HashEmbedder({ dims: 32 });
    expect(await e.embed([])).toEqual([]);
    const out = await e.embed(["alpha", "beta", "alpha"]);
    expect(out).toHaveLength(3);
    expect(out[0]).toEqual(out[2]);
    expect(out[0]).not.toEqual(out[1]);
  });

  it("rejects a non-positive dimension", () => {
    expect(() => new HashEmbedder({ dims: 0 })).toThrow(RangeError);
  });
});
