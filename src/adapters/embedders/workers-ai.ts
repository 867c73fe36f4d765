import { DEFAULT_SIMILARITY_THRESHOLD, type Embedder } from "../embedder";
import { DimsGuard, EmbedderError, embedInBatches } from "./shared";

export const WORKERS_AI_DEFAULT_MODEL = "@cf/baai/bge-small-en-v1.5";
/** The BGE text-embedding models take at most 100 texts per call. */
export const WORKERS_AI_MAX_BATCH = 100;

export const KNOWN_DIMS: Readonly<Record<string, number>> = {
  "@cf/baai/bge-small-en-v1.5": 384,
  "@cf/baai/bge-base-en-v1.5": 768,
  "@cf/baai/bge-large-en-v1.5": 1024,
  "@cf/baai/bge-m3": 1024,
  "@cf/google/embeddinggemma-300m": 768,
};

/**
 * The slice of the `Ai` binding this adapter uses. The real binding's `run` is a large generic
 * overload set keyed by model name, which a test fake cannot reasonably implement.
 */
export interface AiTextEmbeddingRunner {
  run(model: string, inputs: { text: string[] }): Promise<unknown>;
}

export class WorkersAiEmbedder implements Embedder {
  readonly provider = "workers-ai" as const;
  readonly similarityThreshold = DEFAULT_SIMILARITY_THRESHOLD;
  readonly model: string;
  private readonly modelName: string;
  private readonly guard: DimsGuard;
  private readonly ai: AiTextEmbeddingRunner;

  constructor(ai: Ai | AiTextEmbeddingRunner, opts: { model?: string; dims?: number } = {}) {
    this.ai = ai as AiTextEmbeddingRunner;
    this.modelName = opts.model ?? WORKERS_AI_DEFAULT_MODEL;
    this.model = `workers-ai:${this.modelName}`;
    this.guard = new DimsGuard("workers-ai", this.modelName, opts.dims ?? KNOWN_DIMS[this.modelName]);
  }

  get dims(): number {
    return this.guard.dims;
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    return embedInBatches(texts, WORKERS_AI_MAX_BATCH, this.guard, "workers-ai", this.modelName, async (batch, positions) => {
      let res: unknown;
      try {
        res = await this.ai.run(this.modelName, { text: batch });
      } catch (err) {
        const detail = err instanceof Error ? err.message : String(err);
        throw new EmbedderError("workers-ai", `workers-ai embedding with model ${this.modelName} failed: ${detail}`, { cause: err });
      }
      const data = (res as { data?: unknown } | null)?.data;
      if (!Array.isArray(data) || data.length !== batch.length) {
        throw new EmbedderError(
          "workers-ai",
          `workers-ai model ${this.modelName} returned ${Array.isArray(data) ? data.length : "no"} embeddings for ${batch.length} texts` +
            ((res as { request_id?: unknown } | null)?.request_id !== undefined
              ? " (the request was queued; batch mode is not supported)"
              : ""),
        );
      }
      return positions.map((pos, j) => this.guard.accept(data[j], pos));
    });
  }
}
