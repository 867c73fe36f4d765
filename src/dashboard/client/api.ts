import { Praxis, PraxisError, unwrap } from "../../../client/src/index.js";

export const KEY_STORAGE = "praxis.apiKey";

let praxis: Praxis | null = null;
let unauthorized: (message: string) => void = () => undefined;

/** The typed client for the key of this tab (sessionStorage): every call is checked against the API's types. */
export function api(): Praxis["api"] {
  praxis ??= new Praxis({ baseUrl: location.origin, apiKey: sessionStorage.getItem(KEY_STORAGE) ?? "" });
  return praxis.api;
}

export function praxisClient(): Praxis {
  api();
  return praxis!;
}

/** Forgets the client (the key changed). */
export const resetApi = () => void (praxis = null);
export const onUnauthorized = (fn: (message: string) => void) => void (unauthorized = fn);

/** The data of a call, or the PraxisError of its problem; a refused key signs the tab out. */
export async function call<T>(request: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  try {
    return await unwrap(request);
  } catch (err) {
    if (err instanceof PraxisError && err.status === 401) unauthorized("The key was refused; sign in again.");
    throw err;
  }
}

export const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));
export const statusOf = (err: unknown) => (err instanceof PraxisError ? err.status : undefined);

/** Every item of a cursor-paginated list, up to `max`. */
export async function pageAll<T>(
  page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>,
  max = 2000,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const r = await page(cursor);
    items.push(...r.items);
    cursor = r.nextCursor ?? undefined;
  } while (cursor && items.length < max);
  return items;
}
