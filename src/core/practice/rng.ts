/**
 * Seeded randomness for practice runs: the same seed gives the same batches, so a run can be
 * reproduced and an interrupted run resumes exactly where an uninterrupted one would be.
 */

/** mulberry32: a tiny, well-distributed 32-bit generator; plenty for shuffling task order. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fisher–Yates on a copy. */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Mixes the run seed with the epoch so that each epoch reshuffles, reproducibly. */
export function epochSeed(seed: number, epoch: number): number {
  return (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(epoch + 1, 0xc2b2ae35)) >>> 0;
}

/**
 * The batches of one epoch: the train tasks (by index) shuffled with the run's seed, cut into
 * `batchSize` pieces. The last batch may be smaller.
 */
export function epochBatches(taskCount: number, batchSize: number, seed: number, epoch: number): number[][] {
  const order = shuffled(
    Array.from({ length: taskCount }, (_, i) => i),
    seededRandom(epochSeed(seed, epoch)),
  );
  const out: number[][] = [];
  for (let i = 0; i < order.length; i += batchSize) out.push(order.slice(i, i + batchSize));
  return out;
}

export const stepsPerEpoch = (taskCount: number, batchSize: number) => Math.ceil(taskCount / batchSize);

/** A rollout's sampling seed: distinct per run, epoch, task and rollout, identical when a unit is retried. */
export function rolloutSeed(seed: number, epoch: number, task: number, rollout: number): number {
  return (seededRandom(epochSeed(seed, epoch) ^ Math.imul(task + 1, 0x27d4eb2d) ^ Math.imul(rollout + 1, 0x165667b1))() * 2 ** 31) >>> 0;
}

/**
 * The sampling seed of a run's evaluations in one round: round 0 uses the run's seed, so every
 * library of the run is scored with the same draws; each extra round of the gate draws anew, the
 * same for both libraries it compares.
 */
export const roundSeed = (seed: number, round: number): number => (round === 0 ? seed : epochSeed(seed, 0x10000 + round) & 0x7fffffff);
