import { PraxisError } from "./errors.js";
/** The data of a typed call, or a PraxisError carrying the problem the API answered. */
export async function unwrap(call) {
    const { data, error, response } = await call;
    if (!response.ok)
        throw new PraxisError(response.status, error, response.headers.get("x-request-id"));
    return data;
}
