/** Splits `items` into consecutive runs of at most `size` (a positive integer). */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  if (!(Number.isInteger(size) && size > 0)) throw new RangeError(`chunk size must be a positive integer, got ${size}`);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
