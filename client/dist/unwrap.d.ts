type ApiResult<T> = {
    data?: T;
    error?: unknown;
    response: Response;
};
/** The data of a typed call, or a PraxisError carrying the problem the API answered. */
export declare function unwrap<T>(call: Promise<ApiResult<T>>): Promise<T>;
export {};
