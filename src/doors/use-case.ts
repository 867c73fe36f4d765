import type { Context } from "hono";
import type { AppEnv } from "../env";
import type { Deps } from "../platform/deps";
import type { Outcome } from "../core/errors";
import { problemOf } from "./problem";

/** A route's dependencies for a use case: the same shape a queue job or cron builds for itself. */
export function depsOf(c: Context<AppEnv>): Deps {
  return {
    env: c.env,
    waitUntil: (p) => c.executionCtx.waitUntil(p),
    logger: c.get("logger"),
    requestId: c.get("requestId"),
  };
}

/** A use case's value, or its domain error thrown as the problem the app's error handler answers. */
export function valueOf<T>(o: Outcome<T>): T {
  if (o.ok) return o.value;
  throw problemOf(o.error);
}
