import { sha256Hex } from "../api-key";
import { hash32 } from "../hash-embedder";

export type Split = "train" | "holdout";

/** A uniform value in [0, 1) from a string (the feature hasher's FNV-1a with a murmur3 finaliser). */
export const unitHash = (text: string): number => hash32(text) / 2 ** 32;

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
