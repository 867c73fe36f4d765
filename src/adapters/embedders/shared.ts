import { l2normalize } from "../../core/vector-math";
import { chunks } from "../../core/chunks";
import type { Embedder } from "../embedder";

/**
 * Raised when a remote embedder fails or answers something unusable. Callers can tell it apart
 * from their own bugs and answer "upstream unavailable" rather than "internal error".
 */
export class EmbedderError extends Error {
  readonly provider: Embedder["provider"];
  constructor(provider: Embedder["provider"], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "EmbedderError";
    this.provider = provider;
  }
}

/**
 * The endpoint answered vectors of another size than configured or learned: a configuration
 * problem (wrong model or size setting), not an outage.
 */
export class EmbedderDimsError extends EmbedderError {
  constructor(provider: Embedder["provider"], message: string) {
    super(provider, message);
    this.name = "EmbedderDimsError";
  }
}

/**
 * Tracks the dimension of a remote model. Known models (or an explicit setting) fix it up front;
 * otherwise the first response teaches it. Afterwards every vector must agree, because a silent
 * change (the endpoint swapped models, or ignored `dimensions`) would put incomparable vectors
 * into one index.
 */
export class DimsGuard {
  private value: number;
  constructor(
    private readonly provider: Embedder["provider"],
    private readonly model: string,
    dims: number | undefined,
  ) {
    if (dims !== undefined && (!Number.isInteger(dims) || dims <= 0)) {
      throw new RangeError(`${provider} embedder dims must be a positive integer, got ${dims}`);
    }
    this.value = dims ?? 0;
  }

  /** 0 while unknown (a model missing from the known table, before its first call). */
  get dims(): number {
    return this.value;
  }

  /** Validates one raw embedding and returns it as a unit-length Float32Array. */
  accept(raw: unknown, position: number): Float32Array {
    if (!Array.isArray(raw) || raw.length === 0 || !raw.every((x) => typeof x === "number" && Number.isFinite(x))) {
      throw new EmbedderError(
        this.provider,
        `${this.provider} embedder (${this.model}) returned a malformed embedding at position ${position}: expected a non-empty array of finite numbers`,
      );
    }
    if (this.value === 0) this.value = raw.length;
    else if (raw.length !== this.value) {
      throw new EmbedderDimsError(
        this.provider,
        `${this.provider} embedder (${this.model}) returned ${raw.length} dims, expected ${this.value}; the endpoint may serve a different model or ignore the requested dimensions`,
      );
    }
    return l2normalize(Float32Array.from(raw as number[]));
  }
}

/**
 * Empty and whitespace-only texts are never sent: OpenAI rejects empty strings, and any vector a
 * model invents for "nothing" would match other empty inputs strongly. They get a zero vector,
 * which cosine treats as "no signal", the same as the hash embedder does.
 */
export function isBlank(text: string): boolean {
  return text.trim().length === 0;
}

/**
 * The batching both remote embedders share: blank texts are never sent (providers reject empty
 * input), the rest go in batches of `batchSize`, and blanks get zero vectors at the end, once a
 * real response has fixed the dimension.
 */
export async function embedInBatches(
  texts: readonly string[],
  batchSize: number,
  guard: DimsGuard,
  provider: EmbedderError["provider"],
  model: string,
  request: (batch: string[], positions: number[]) => Promise<Float32Array[]>,
): Promise<Float32Array[]> {
  const out: Float32Array[] = new Array(texts.length);
  const pending: number[] = [];
  texts.forEach((t, i) => {
    if (!isBlank(t)) pending.push(i);
  });
  for (const positions of chunks(pending, batchSize)) {
    const vectors = await request(
      positions.map((i) => texts[i]!),
      positions,
    );
    positions.forEach((pos, j) => (out[pos] = vectors[j]!));
  }
  for (let i = 0; i < texts.length; i++) {
    if (out[i] === undefined) {
      if (guard.dims === 0) {
        throw new EmbedderError(
          provider,
          `${provider} embedder (${model}) cannot embed only blank texts before its dimension is known; set dims`,
        );
      }
      out[i] = new Float32Array(guard.dims);
    }
  }
  return out;
}
