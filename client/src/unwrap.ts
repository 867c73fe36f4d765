import { PraxisError } from "./errors.js";

type ApiResult<T> = { data?: T; error?: unknown; response: Response };

/** The data of a typed call, or a PraxisError carrying the problem the API answered. */
export async function unwrap<T>(call: Promise<ApiResult<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new PraxisError(response.status, error, response.headers.get("x-request-id"));
  return data as T;
}
