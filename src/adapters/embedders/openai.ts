import OpenAI, { APIConnectionTimeoutError } from "openai";
import { estimateTokens } from "../../core/lexical";
import { retryDelayMs } from "../openai-retry";
import { DEFAULT_SIMILARITY_THRESHOLD, type Embedder, type EmbeddingMeter } from "../embedder";
import { DimsGuard, EmbedderError, embedInBatches } from "./shared";

/**
 * OpenAI accepts up to 2048 inputs per request, but several compatible servers (Cohere-style
 * gateways, some vLLM deployments) cap at 96, and smaller requests also keep one oversized batch
 * from hitting the per-request token ceiling.
 */
export const OPENAI_MAX_BATCH = 96;

/** The SDK default (10 minutes) outlives any Worker request that waits on an embedding. */
export const EMBEDDER_TIMEOUT_MS = 30_000;

/** Native sizes, so `dims` is known before the first call for the common models. */
export const KNOWN_DIMS: Readonly<Record<string, number>> = {
  "text-embedding-3-small": 1536,
  "text-embedding-3-large": 3072,
  "text-embedding-ada-002": 1536,
};

/**
 * Models that honour `dimensions` (Matryoshka shortening). Servers reject it for other models
 * (vLLM refuses it outright), so there a configured size only declares what the model returns.
 */
const SHORTENABLE: ReadonlySet<string> = new Set(["text-embedding-3-small", "text-embedding-3-large"]);

export interface OpenAiEmbedderOptions {
  baseURL: string;
  apiKey: string;
  model: string;
  /**
   * Size of the vectors. Requested as `dimensions` from models that support shortening; for any
   * other model it declares the native size, which unknown models otherwise learn on first use.
   */
  dims?: number;
  batchSize?: number;
  maxRetries?: number;
  timeoutMs?: number;
}

export class OpenAiEmbedder implements Embedder {
  readonly provider = "openai" as const;
  readonly similarityThreshold = DEFAULT_SIMILARITY_THRESHOLD;
  readonly model: string;
  private readonly modelName: string;
  private readonly requestedDims: number | undefined;
  private readonly guard: DimsGuard;
  private readonly batchSize: number;
  private readonly baseURL: string;
  private readonly client: OpenAI;
  private readonly maxRetries: number;

  constructor(opts: OpenAiEmbedderOptions) {
    if (!opts.baseURL) throw new Error("openai embedder needs a base URL");
    if (!opts.model) throw new Error("openai embedder needs a model name");
    this.modelName = opts.model;
    this.requestedDims = SHORTENABLE.has(opts.model) ? opts.dims : undefined;
    this.guard = new DimsGuard("openai", opts.model, opts.dims ?? KNOWN_DIMS[opts.model]);
    // Only a requested size changes the space: the native size of a model is implied by its name.
    this.model = this.requestedDims === undefined ? `openai:${opts.model}` : `openai:${opts.model}:${this.requestedDims}`;
    const batchSize = opts.batchSize ?? OPENAI_MAX_BATCH;
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > OPENAI_MAX_BATCH) {
      throw new RangeError(`openai embedder batchSize must be an integer in 1..${OPENAI_MAX_BATCH}, got ${batchSize}`);
    }
    this.batchSize = batchSize;
    this.baseURL = opts.baseURL;
    this.maxRetries = opts.maxRetries ?? 2;
    // Retries are made here, not by the client, so that each attempt is metered (see `request`).
    this.client = new OpenAI({
      baseURL: opts.baseURL,
      apiKey: opts.apiKey,
      maxRetries: 0,
      timeout: opts.timeoutMs ?? EMBEDDER_TIMEOUT_MS,
      // Resolved per call rather than captured, so the runtime's (or a test's) current fetch is used.
      fetch: (input, init) => globalThis.fetch(input, init),
    });
  }

  get dims(): number {
    return this.guard.dims;
  }

  embed(texts: string[], meter?: EmbeddingMeter): Promise<Float32Array[]> {
    return embedInBatches(texts, this.batchSize, this.guard, "openai", this.modelName, (batch) => this.request(batch, meter));
  }

  /**
   * One batch, retried like the LLM client retries (retryDelayMs). Each attempt opens its own row
   * through `meter` before it goes out, settled with the provider's `usage.prompt_tokens`; a refused
   * row (the tenant's budget) fails the batch before any request is made.
   */
  private async request(input: string[], meter: EmbeddingMeter | undefined): Promise<Float32Array[]> {
    const estimate = input.reduce((n, t) => n + estimateTokens(t), 0);
    let res: OpenAI.CreateEmbeddingResponse;
    for (let attempt = 0; ; attempt++) {
      const call = meter ? await meter(this.modelName, estimate) : null;
      try {
        res = await this.client.embeddings.create({
          model: this.modelName,
          input,
          encoding_format: "float",
          ...(this.requestedDims === undefined ? {} : { dimensions: this.requestedDims }),
        });
      } catch (err) {
        // An error answer is not billed; a timed-out request may have been, so it keeps its estimate.
        const timedOut = err instanceof APIConnectionTimeoutError;
        await call
          ?.settle({ tokensIn: timedOut ? estimate : 0, tokensOut: 0, costUsd: 0, estimated: timedOut, failed: true })
          .catch(() => undefined);
        const wait = attempt < this.maxRetries ? retryDelayMs(err, attempt) : null;
        if (wait !== null) {
          await new Promise((r) => setTimeout(r, wait));
          continue;
        }
        const status = err instanceof OpenAI.APIError && err.status !== undefined ? ` (HTTP ${err.status})` : "";
        const detail = err instanceof Error ? err.message : String(err);
        throw new EmbedderError(
          "openai",
          `openai embeddings request to ${this.baseURL} for model ${this.modelName} failed${status}: ${detail}`,
          { cause: err },
        );
      }
      const reported = (res as { usage?: { prompt_tokens?: unknown } }).usage?.prompt_tokens;
      const tokens = typeof reported === "number" ? reported : estimate;
      await call
        ?.settle({ tokensIn: tokens, tokensOut: 0, costUsd: 0, estimated: typeof reported !== "number", failed: false })
        .catch(() => undefined);
      break;
    }
    const data: unknown = (res as { data?: unknown }).data;
    if (!Array.isArray(data) || data.length !== input.length) {
      throw new EmbedderError(
        "openai",
        `openai embeddings response for model ${this.modelName} has ${Array.isArray(data) ? data.length : "no"} items for ${input.length} inputs`,
      );
    }
    // The API documents `index` as the input position; servers are free to answer out of order.
    const vectors: Float32Array[] = new Array(input.length);
    for (const item of data as { index?: unknown; embedding?: unknown }[]) {
      const index = item?.index;
      if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= input.length || vectors[index] !== undefined) {
        throw new EmbedderError(
          "openai",
          `openai embeddings response for model ${this.modelName} has an invalid or duplicate index ${String(index)}`,
        );
      }
      vectors[index] = this.guard.accept(item.embedding, index);
    }
    return vectors;
  }
}
