/**
 * Forgetting: Ebbinghaus-style retention whose decay rate shrinks for useful memories (high Q) and
 * whose time scale stretches for memories that are retrieved often. Sweeps archive what has faded
 * below a threshold, and capacity pruning archives the least useful when a library is too big.
 * Pinned memories are never selected; only "active" memories are considered at all.
 */
import { normaliseQ } from "./q-learning";

export const DAY_MS = 86_400_000;

export interface DecayParams {
  /** Decay rate per day for a memory with no utility and no uses. */
  baseDecay: number;
  /** How much utility slows decay, in [0,1]: at 1 a memory with Q = 1 never decays. */
  utilityFactor: number;
  /** How much repeated use stretches the time scale; 0 turns it off. */
  useBoost: number;
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

/** baseDecay × (1 − qNorm × utilityFactor), with qNorm and utilityFactor clamped to [0,1]. */
export function effectiveDecay(baseDecay: number, qNorm: number, utilityFactor: number): number {
  return baseDecay * (1 - clamp01(qNorm) * clamp01(utilityFactor));
}

export interface DecayItem {
  /** Epoch ms of the last retrieval or use; may be 0 or older than createdAt when never used. */
  lastUsedAt: number;
  /** Epoch ms. */
  createdAt: number;
  /** Utility in [−1, 1]. */
  q: number;
  /** Times the memory has been used. */
  uses: number;
}

/**
 * R = exp(−effectiveDecay × ageDays / (1 + useBoost × ln(1 + uses))), in (0, 1].
 *
 * ageDays is the time from the memory's last reinforcement to `now`, in days (86 400 000 ms):
 * the later of lastUsedAt and createdAt, so a use resets the forgetting curve and a never-used
 * memory ages from its creation. A clock behind the item (negative age) counts as age 0.
 * Uses act logarithmically so the tenth use adds far less than the first.
 */
export function retention(item: DecayItem, now: number, params: DecayParams): number {
  const since = Math.max(item.lastUsedAt, item.createdAt);
  const ageDays = Math.max(0, now - since) / DAY_MS;
  const rate = effectiveDecay(params.baseDecay, normaliseQ(item.q), params.utilityFactor);
  const stretch = 1 + Math.max(0, params.useBoost) * Math.log1p(Math.max(0, item.uses));
  return Math.exp((-rate * ageDays) / stretch);
}

export interface Lifecycle {
  id: string;
  pinned: boolean;
  /** Only "active" items are candidates; anything else is already out of the library. */
  status: string;
}

function eligible(item: Lifecycle): boolean {
  return item.status === "active" && !item.pinned;
}

/** Ids of active, unpinned items whose retention is below `threshold`, most faded first (then id). */
export function selectForDecay(items: readonly (Lifecycle & DecayItem)[], now: number, params: DecayParams, threshold: number): string[] {
  const faded: { id: string; r: number }[] = [];
  for (const item of items) {
    if (!eligible(item)) continue;
    const r = retention(item, now, params);
    if (r < threshold) faded.push({ id: item.id, r });
  }
  faded.sort((a, b) => a.r - b.r || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return faded.map((f) => f.id);
}

/**
 * When the earliest of these items' retention falls below `threshold` (the inverse of `retention`),
 * or null when none ever does: the time a sweep next has something to archive, so an agent nobody
 * uses is woken then rather than polled. Only active, unpinned items count, as in selectForDecay.
 */
export function nextFadeAt(items: readonly (Lifecycle & DecayItem)[], params: DecayParams, threshold: number): number | null {
  if (!(threshold > 0)) return null;
  let first: number | null = null;
  for (const item of items) {
    if (!eligible(item)) continue;
    const rate = effectiveDecay(params.baseDecay, normaliseQ(item.q), params.utilityFactor);
    if (!(rate > 0)) continue;
    const stretch = 1 + Math.max(0, params.useBoost) * Math.log1p(Math.max(0, item.uses));
    const ageDays = threshold >= 1 ? 0 : (-Math.log(threshold) * stretch) / rate;
    // A millisecond past the crossing, where retention is strictly below the threshold.
    const at = Math.max(item.lastUsedAt, item.createdAt) + Math.ceil(ageDays * DAY_MS) + 1;
    if (first === null || at < first) first = at;
  }
  return first;
}

export interface CapacityItem extends Lifecycle {
  q: number;
  /** Epoch ms; older items go first among equal Q. */
  updatedAt: number;
}

/**
 * Ids to archive so that at most `capacity` items stay active: the lowest-Q active unpinned items,
 * older (updatedAt) first on equal Q, then by id. Pinned active items count towards the capacity
 * but are never chosen, so if they alone exceed it every unpinned active item is returned and the
 * library still ends above capacity.
 */
export function selectOverCapacity(items: readonly CapacityItem[], capacity: number): string[] {
  const active = items.filter((i) => i.status === "active");
  const excess = active.length - Math.max(0, Math.floor(capacity));
  if (excess <= 0) return [];
  return active
    .filter((i) => !i.pinned)
    .sort((a, b) => a.q - b.q || a.updatedAt - b.updatedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, excess)
    .map((i) => i.id);
}
