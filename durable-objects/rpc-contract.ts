import type { Outcome } from "../src/core/errors";

/**
 * The typed contract of a Durable Object: each RPC takes one request object, and each has a retry
 * class that the resilient stubs in src/platform/objects read (object-stub.ts). Each object
 * declares its own (`<name>/contract.ts`) as `satisfies Contract<TheClass>`.
 */

/**
 * How a caller may repeat a call to an object after a transport fault: `repeatable`, always (a
 * second call changes nothing the first did not); `repeatableWith`, only when the request carries
 * the named string field (an `idempotencyKey`, a batch id) by which the object applies it once;
 * `unrepeatable`, never. `write` says the call takes one of the agent's write slots in an isolate
 * (src/platform/objects/agent-access.ts), whatever its retry class.
 */
export type RetryClass<Request = Record<string, string>> = (
  | { repeatable: true }
  | { repeatableWith: KeyField<Request> }
  | { unrepeatable: true }
) & { write?: true };

/** The request's fields that hold a string (or may be absent): the ones a `repeatableWith` class may name. */
type KeyField<Request> = {
  [K in keyof NonNullable<Request>]-?: [NonNullable<NonNullable<Request>[K]>] extends [string] ? K : never;
}[keyof NonNullable<Request>] &
  string;

/** A write the object applies once per `idempotencyKey` (a repeat replays the first answer). */
export type Keyed<T> = T & { idempotencyKey?: string | undefined };

type PublicMethods<T> = {
  [K in keyof T]: [T[K]] extends [never] ? never : T[K] extends (...args: never[]) => unknown ? K : never;
}[keyof T] &
  string;

/** The RPC methods of an object: its public methods, less what the runtime itself calls. */
export type RpcName<T> = Exclude<PublicMethods<T>, "fetch" | "alarm" | "webSocketMessage" | "webSocketClose" | "webSocketError">;

/** One retry class per RPC method of `T`; a `repeatableWith` class must name a field of that method's request. */
export type Contract<T> = { [M in RpcName<T>]: RetryClass<T[M] extends (req: infer R) => unknown ? R : never> };

type Value<R> = Awaited<R> extends Outcome<infer T> ? T : Awaited<R>;

/**
 * An object as its callers see it through the resilient wrapper (src/platform/objects/object-stub.ts):
 * each RPC answers its value, its domain error thrown again as a DomainError. Declared here so that
 * code handed an object as a port can name its type without the wrapper.
 */
export type Resilient<T> = {
  [M in RpcName<T>]: T[M] extends (...args: infer A) => infer R ? (...args: A) => Promise<Value<R>> : never;
};
