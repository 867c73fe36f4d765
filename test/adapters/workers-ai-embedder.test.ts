import { describe, expect, it, vi } from "vitest";
import { EmbedderError } from "../../src/adapters/embedders/shared";
import { WORKERS_AI_DEFAULT_MODEL, WorkersAiEmbedder } from "../../src/adapters/embedders/workers-ai";

/** A stand-in for the AI binding answering like the BGE models: `{ shape, data }`. */
function fakeAi(vectorFor: (text: string) => number[]) {
  return {
    run: vi.fn(async (_model: string, inputs: { text: string[] }) => {
      const data = inputs.text.map(vectorFor);
      return { shape: [data.length, data[0]?.length ?? 0], data };
    }),
  };
}

describe("WorkersAiEmbedder", () => {
  it("defaults to bge-small with its 384 dims and a provider-prefixed model id", () => {
    const e = new WorkersAiEmbedder(fakeAi(() => []));
    expect(WORKERS_AI_DEFAULT_MODEL).toBe("@cf/baai/bge-small-en-v1.5");
    expect(e.provider).toBe("workers-ai");
    expect(e.model).toBe("workers-ai:@cf/baai/bge-small-en-v1.5");
    expect(e.dims).toBe(384);
  });

  it("calls run(model, { text }) and returns normalised vectors in input order", async () => {
    const ai = fakeAi((t) => (t === "a" ? [3, 0, 4] : [0, 5, 0]));
    const e = new WorkersAiEmbedder(ai, { model: "@cf/test/tiny" });
    const [a, b] = await e.embed(["a", "b"]);
    expect(ai.run).toHaveBeenCalledWith("@cf/test/tiny", { text: ["a", "b"] });
    expect(Array.from(a!)).toEqual([expect.closeTo(0.6, 6), 0, expect.closeTo(0.8, 6)]);
    expect(Array.from(b!)).toEqual([0, 1, 0]);
    expect(e.model).toBe("workers-ai:@cf/test/tiny");
    expect(e.dims).toBe(3);
  });

  it("batches at 100 texts per call", async () => {
    const ai = fakeAi((t) => [Number(t) + 1, 1]);
    const texts = Array.from({ length: 250 }, (_, i) => String(i));
    const out = await new WorkersAiEmbedder(ai, { model: "@cf/test/tiny" }).embed(texts);
    expect(ai.run.mock.calls.map((c) => c[1].text.length)).toEqual([100, 100, 50]);
    out.forEach((v, i) => expect(v[0]! / v[1]!).toBeCloseTo(i + 1, 3));
  });

  it("rejects vectors that disagree with the model's known size", async () => {
    const e = new WorkersAiEmbedder(fakeAi(() => [1, 2, 3]));
    await expect(e.embed(["x"])).rejects.toThrow(/returned 3 dims, expected 384/);
  });

  it("rejects a response without one embedding per text (e.g. a queued request)", async () => {
    const e = new WorkersAiEmbedder({ run: async () => ({ request_id: "abc" }) });
    await expect(e.embed(["x"])).rejects.toThrow(/batch mode is not supported/);
  });

  it("wraps binding failures in an EmbedderError naming the model", async () => {
    const e = new WorkersAiEmbedder({
      run: async () => {
        throw new Error("3040: Capacity temporarily exceeded");
      },
    });
    const err = await e.embed(["x"]).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EmbedderError);
    expect((err as Error).message).toContain("@cf/baai/bge-small-en-v1.5");
    expect((err as Error).message).toContain("Capacity temporarily exceeded");
  });

  it("gives blank texts a zero vector without calling the model", async () => {
    const ai = fakeAi(() => new Array(384).fill(1));
    const out = await new WorkersAiEmbedder(ai).embed([" ", "x"]);
    expect(ai.run).toHaveBeenCalledWith(WORKERS_AI_DEFAULT_MODEL, { text: ["x"] });
    expect(out[0]!.every((v) => v === 0)).toBe(true);
    expect(out[0]).toHaveLength(384);
  });
});
