import { afterEach, describe, expect, it, vi } from "vitest";
import { OpenAiEmbedder } from "../../src/adapters/embedders/openai";
import { EmbedderError } from "../../src/adapters/embedders/shared";

const BASE = "https://embeddings.example.test/v1";

interface SeenRequest {
  url: string;
  auth: string | null;
  body: { model: string; input: string[]; dimensions?: number; encoding_format?: string };
}

/**
 * Answers like the OpenAI embeddings endpoint. `vectorFor` decides each input's embedding;
 * items come back in reverse order so that code trusting array order instead of `index` fails.
 */
function stubEmbeddings(vectorFor: (text: string) => number[]): SeenRequest[] {
  const seen: SeenRequest[] = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const req = new Request(input as RequestInfo, init);
    const body = (await req.json()) as SeenRequest["body"];
    seen.push({ url: req.url, auth: req.headers.get("authorization"), body });
    const data = body.input.map((text, index) => ({ object: "embedding", index, embedding: vectorFor(text) })).reverse();
    return Response.json({ object: "list", data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } });
  });
  return seen;
}

const make = (extra: Partial<ConstructorParameters<typeof OpenAiEmbedder>[0]> = {}) =>
  new OpenAiEmbedder({ baseURL: BASE, apiKey: "sk-test", model: "text-embedding-3-small", maxRetries: 0, ...extra });

afterEach(() => {
  vi.restoreAllMocks();
});

describe("OpenAiEmbedder", () => {
  it("sends model, inputs and float encoding to the configured base URL with the key", async () => {
    const seen = stubEmbeddings(() => [1, 0, 0]);
    await make({ dims: 3 }).embed(["first", "second"]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toBe(`${BASE}/embeddings`);
    expect(seen[0]!.auth).toBe("Bearer sk-test");
    expect(seen[0]!.body).toEqual({ model: "text-embedding-3-small", input: ["first", "second"], encoding_format: "float", dimensions: 3 });
  });

  it("does not send `dimensions` unless configured, since older models reject it", async () => {
    const seen = stubEmbeddings(() => new Array(1536).fill(1));
    const e = make();
    expect(e.dims).toBe(1536);
    expect(e.model).toBe("openai:text-embedding-3-small");
    await e.embed(["x"]);
    expect(seen[0]!.body).not.toHaveProperty("dimensions");
  });

  it("includes a configured dimension in the model id", () => {
    expect(make({ dims: 256 }).model).toBe("openai:text-embedding-3-small:256");
  });

  it("maps items back by `index` when the server answers out of order, and normalises them", async () => {
    const vectors: Record<string, number[]> = { a: [3, 4, 0], b: [0, 0, 2], c: [1, 1, 1] };
    stubEmbeddings((t) => vectors[t]!);
    const [a, b, c] = await make({ dims: 3 }).embed(["a", "b", "c"]);
    expect(Array.from(a!)).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6), 0]);
    expect(Array.from(b!)).toEqual([0, 0, 1]);
    for (const x of c!) expect(x).toBeCloseTo(1 / Math.sqrt(3), 6);
    expect(a).toBeInstanceOf(Float32Array);
  });

  it("splits large inputs into requests of at most 96 and keeps input order", async () => {
    const seen = stubEmbeddings((t) => [Number(t.slice(1)) + 1, 1]);
    const texts = Array.from({ length: 200 }, (_, i) => `t${i}`);
    const out = await make({ model: "local-model" }).embed(texts);
    expect(seen.map((s) => s.body.input.length)).toEqual([96, 96, 8]);
    expect(seen[1]!.body.input[0]).toBe("t96");
    expect(out).toHaveLength(200);
    // Vector i is proportional to (i + 1, 1), so its first/second ratio identifies the input.
    out.forEach((v, i) => expect(v[0]! / v[1]!).toBeCloseTo(i + 1, 3));
  });

  it("learns the dimension of an unknown model from the first response", async () => {
    stubEmbeddings(() => [1, 2, 3, 4, 5]);
    const e = make({ model: "nomic-embed-text" });
    expect(e.dims).toBe(0);
    expect(e.model).toBe("openai:nomic-embed-text");
    await e.embed(["x"]);
    expect(e.dims).toBe(5);
  });

  it("gives blank texts a zero vector without sending them", async () => {
    const seen = stubEmbeddings(() => [0, 1, 0]);
    const out = await make({ dims: 3 }).embed(["", "real", "   "]);
    expect(seen[0]!.body.input).toEqual(["real"]);
    expect(Array.from(out[0]!)).toEqual([0, 0, 0]);
    expect(Array.from(out[1]!)).toEqual([0, 1, 0]);
    expect(Array.from(out[2]!)).toEqual([0, 0, 0]);
  });

  it("makes no request for an empty batch", async () => {
    const seen = stubEmbeddings(() => [1]);
    expect(await make().embed([])).toEqual([]);
    expect(seen).toHaveLength(0);
  });

  it("rejects a response whose size differs from the requested dimension", async () => {
    stubEmbeddings(() => [1, 2, 3, 4]);
    await expect(make({ dims: 3 }).embed(["x"])).rejects.toThrow(/returned 4 dims, expected 3/);
  });

  it("rejects a response with a missing item", async () => {
    vi.spyOn(globalThis, "fetch").mockResolvedValue(
      Response.json({ object: "list", data: [{ object: "embedding", index: 0, embedding: [1, 0] }], model: "m" }),
    );
    await expect(make({ model: "m" }).embed(["a", "b"])).rejects.toThrow(/1 items for 2 inputs/);
  });

  it("surfaces an HTTP error as an EmbedderError naming the endpoint, status and server message", async () => {
    vi.spyOn(globalThis, "fetch").mockResolvedValue(
      Response.json({ error: { message: "Incorrect API key provided", type: "invalid_request_error" } }, { status: 401 }),
    );
    const err = await make()
      .embed(["x"])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EmbedderError);
    const msg = (err as Error).message;
    expect(msg).toContain(BASE);
    expect(msg).toContain("HTTP 401");
    expect(msg).toContain("Incorrect API key provided");
    expect(msg).not.toContain("sk-test");
  });

  it("retries a transient failure when retries are allowed", async () => {
    let calls = 0;
    vi.spyOn(globalThis, "fetch").mockImplementation(async () => {
      calls++;
      if (calls === 1) return Response.json({ error: { message: "overloaded" } }, { status: 503, headers: { "retry-after-ms": "1" } });
      return Response.json({ object: "list", data: [{ object: "embedding", index: 0, embedding: [0, 2] }], model: "m" });
    });
    const [v] = await make({ model: "m", maxRetries: 1 }).embed(["x"]);
    expect(calls).toBe(2);
    expect(Array.from(v!)).toEqual([0, 1]);
  });

  it("surfaces a network failure as an EmbedderError", async () => {
    vi.spyOn(globalThis, "fetch").mockRejectedValue(new TypeError("connection refused"));
    await expect(make().embed(["x"])).rejects.toThrow(EmbedderError);
  });

  it("only checks a configured size for models that cannot shorten, since servers reject `dimensions` for them", async () => {
    const seen = stubEmbeddings(() => [1, 0, 0]);
    const e = make({ model: "bge-small-en", dims: 3 });
    expect(e.model).toBe("openai:bge-small-en");
    await e.embed(["x"]);
    expect(seen[0]!.body).not.toHaveProperty("dimensions");
    await expect(make({ model: "bge-small-en", dims: 4 }).embed(["x"])).rejects.toThrow(/returned 3 dims, expected 4/);
  });
});
