import { sha256Hex } from "../api-key";

export type Split = "train" | "holdout";

/**
 * A uniform value in [0, 1) from a string: FNV-1a over its UTF-8 bytes, then the murmur3
 * finaliser so that ids differing in one trailing character land far apart.
 */
export function unitHash(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32;
}

/**
 * The split of a task that names none. It depends only on the id and the dataset's holdout
 * fraction (fixed when the dataset is created), so re-uploading a task never moves it.
 */
export function splitOf(taskId: string, holdoutFraction: number): Split {
  return unitHash(taskId) < holdoutFraction ? "holdout" : "train";
}

/**
 * The id of a task uploaded without one: a hash of its content (task and ground truth, not
 * metadata), so uploading the same id-less task again is recognised and changes nothing.
 */
export async function contentTaskId(task: string, groundTruth: string | null): Promise<string> {
  return `h_${(await sha256Hex(JSON.stringify([task, groundTruth]))).slice(0, 32)}`;
}
