export interface VectorHit {
  id: string;
  sim: number;
}

/**
 * Nearest-neighbour search over one agent's vectors of one embedding model. The AgentMemory DO
 * keeps every vector in its own SQLite either way; `local` scans them in memory, `vectorize`
 * delegates the search to the Vectorize binding (namespace per tenant+agent).
 */
export interface VectorIndex {
  readonly kind: "local" | "vectorize";
  upsert(items: { id: string; vector: Float32Array; kind: string }[]): Promise<void>;
  remove(ids: string[]): Promise<void>;
  query(vector: Float32Array, opts: { topK: number; minSim: number; kind?: string }): Promise<VectorHit[]>;
}
