import { vi } from "vitest";
import { hashEmbed } from "../../src/core/hash-embedder";

/** Where the double listens; the test bindings (vitest.config.ts) point EMBEDDING_BASE_URL here. */
export const EMBEDDINGS_BASE_URL = "http://embeddings.test/v1";

export interface EmbeddingsRequest {
  model: string;
  input: string[];
  dimensions?: number;
}

export interface SlowEmbeddingsOptions {
  /** How long each answer takes, on a real timer, so the caller's await truly yields. */
  delayMs?: number;
  /** Vector size when the request does not ask for `dimensions`. */
  dims?: number;
}

/**
 * Waits, on a short real timer, until `condition` holds. Workers run a promise's continuation in
 * the I/O context of whoever resolved it, so a test must not wait on a promise that a Durable
 * Object resolves (nor an object on one the test resolves): each side polls shared state instead.
 */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 1));
}

/**
 * The vector the double answers for `text` under `model`: hash-embedder features, with the model
 * name mixed in so two models never agree, which makes a vector filed under the wrong model visible.
 */
export function fakeEmbedding(model: string, text: string, dims: number): Float32Array {
  return hashEmbed(`${model} ${text}`, dims);
}

/**
 * An OpenAI-compatible embeddings endpoint behind the global fetch, as a remote embedder is seen
 * from a Durable Object: every answer takes a few milliseconds, so other requests interleave with
 * the caller's await. `hold()` keeps answers back until released, to act while an embedding is
 * outstanding; `arrived(n)` resolves once n requests have come in. Any other outbound fetch fails.
 */
export function slowEmbeddings(opts: SlowEmbeddingsOptions = {}) {
  const requests: EmbeddingsRequest[] = [];
  let held = false;

  const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input as RequestInfo, init);
    if (req.url !== `${EMBEDDINGS_BASE_URL}/embeddings`) throw new Error(`Unexpected outbound fetch to ${req.url}`);
    const body = (await req.json()) as EmbeddingsRequest;
    requests.push(body);
    await new Promise((resolve) => setTimeout(resolve, opts.delayMs ?? 5));
    await until(() => !held);
    const dims = body.dimensions ?? opts.dims ?? 64;
    const data = body.input.map((text, index) => ({
      object: "embedding",
      index,
      embedding: Array.from(fakeEmbedding(body.model, text, dims)),
    }));
    return Response.json({
      object: "list",
      data,
      model: body.model,
      usage: { prompt_tokens: body.input.length, total_tokens: body.input.length },
    });
  });

  return {
    requests,
    spy,
    /** Keeps every answer back until the returned function is called. */
    hold(): () => void {
      held = true;
      return () => {
        held = false;
      };
    },
    arrived: (n: number) => until(() => requests.length >= n),
  };
}
