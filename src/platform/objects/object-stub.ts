import type { Contract, Resilient, RetryClass } from "../../../durable-objects/rpc-contract";
import { unwrap, type Outcome } from "../../core/errors";
import { doCall, type ObjectFaults } from "./binding-faults";

export type { Resilient };

/** Whether a call of this class, with this request, may be repeated after a retryable fault. */
export function repeatable(retry: RetryClass, request: unknown): boolean {
  if ("repeatable" in retry) return true;
  if ("repeatableWith" in retry) return typeof (request as Record<string, unknown> | undefined)?.[retry.repeatableWith] === "string";
  return false;
}

/**
 * Wraps an object's stub by its contract: each call goes through a fresh stub (so a repeated call
 * never reuses one a failure may have broken), with the documented faults handled and repeated
 * only as the method's retry class allows (binding-faults.ts). `outcomes`: the object
 * answers Outcome values, unwrapped here (an object whose answers are plain values says false).
 * `faults` names the object in the errors a fault becomes. `around` runs each call, given its
 * class (a write slot).
 */
export function resilientObject<T>(
  contract: Contract<T>,
  stub: () => object,
  opts: { outcomes: boolean; faults?: ObjectFaults; around?: (retry: RetryClass, call: () => Promise<unknown>) => Promise<unknown> },
): Resilient<T> {
  const classes = contract as Record<string, RetryClass>;
  return new Proxy({} as Resilient<T>, {
    get(_target, method) {
      if (typeof method !== "string" || !Object.hasOwn(classes, method)) return undefined;
      const retry = classes[method]!;
      return async (...args: unknown[]) => {
        const call = () =>
          doCall(
            () => (stub() as Record<string, (...a: unknown[]) => Promise<unknown>>)[method]!(...args),
            repeatable(retry, args[0]),
            opts.faults,
          );
        const answer = await (opts.around ? opts.around(retry, call) : call());
        return opts.outcomes ? unwrap(answer as Outcome<unknown>) : answer;
      };
    },
  });
}
