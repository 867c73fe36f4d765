import { sha256Hex } from "../api-key";
import { hash32 } from "../hash-embedder";

/** A uniform value in [0, 1) from a string (the feature hasher's FNV-1a with a murmur3 finaliser). */
export const unitHash = (text: string): number => hash32(text) / 2 ** 32;

/**
 * The split of a task that names none. It depends only on the id and the dataset's holdout
 * fraction (fixed when the dataset is created), so re-uploading a task never moves it.
 */
export function splitOf(taskId: string, holdoutFraction: number): "train" | "holdout" {
  return unitHash(taskId) < holdoutFraction ? "holdout" : "train";
}

/** The share of train tasks a run sets aside for validation when its dataset labels none. */
export const DEFAULT_VALIDATION_FRACTION = 0.25;
/** A validation split this small still ranks epochs roughly; fewer tasks would rank them by luck. */
const MIN_VALIDATION_TASKS = 4;

/**
 * The train tasks a run sets aside to choose among its epochs, when its dataset labels no
 * validation tasks: `fraction` of them, but at least MIN_VALIDATION_TASKS where that leaves as
 * many to train on, and always at least one on each side. Which tasks is decided by a hash of
 * their ids, so it does not depend on upload order and the same dataset always splits the same way.
 */
export function carveValidation<T extends { taskId: string }>(train: readonly T[], fraction: number): { train: T[]; validation: T[] } {
  if (train.length < 2) return { train: train.slice(), validation: [] };
  const wanted = Math.max(Math.round(fraction * train.length), Math.min(MIN_VALIDATION_TASKS, Math.floor(train.length / 2)));
  const k = Math.min(train.length - 1, Math.max(1, wanted));
  const chosen = new Set(
    train
      .map((t) => ({ id: t.taskId, h: unitHash(`validation:${t.taskId}`) }))
      .sort((a, b) => a.h - b.h || (a.id < b.id ? -1 : 1))
      .slice(0, k)
      .map((t) => t.id),
  );
  return { train: train.filter((t) => !chosen.has(t.taskId)), validation: train.filter((t) => chosen.has(t.taskId)) };
}

/**
 * The id of a task uploaded without one: a hash of its content (task and ground truth, not
 * metadata), so uploading the same id-less task again is recognised and changes nothing.
 */
export async function contentTaskId(task: string, groundTruth: string | null): Promise<string> {
  return `h_${(await sha256Hex(JSON.stringify([task, groundTruth]))).slice(0, 32)}`;
}
