import { outcome } from "../core/errors";
import type { Deps } from "../platform/deps";

/** Liveness: the Worker runs, and answers `degraded` (with D1's error) when D1 cannot be reached. Needs no caller. */
export const checkHealth = (deps: Pick<Deps, "env">) =>
  outcome(async () => {
    const time = new Date().toISOString();
    try {
      await deps.env.DB.prepare("SELECT 1").first();
      return { status: "ok" as const, d1: "ok" as const, time };
    } catch (err) {
      return { status: "degraded" as const, d1: String(err), time };
    }
  });
