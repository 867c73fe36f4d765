/** Writes the API replays for a repeated Idempotency-Key: the client may retry them with the same key. */
export declare const IDEMPOTENT_WRITES: ReadonlySet<string>;
