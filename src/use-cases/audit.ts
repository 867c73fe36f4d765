import { outcome } from "../core/errors";
import { requireSystem } from "../core/principal";
import type { Caller, Deps } from "../platform/deps";
import { pruneAudit } from "../platform/records/audit";

/** The control plane's audit log (written by each use case that changes it, src/platform/records/audit.ts). */

/** The daily cron's part: entries past retention are deleted. */
export const pruneAuditLog = (deps: Pick<Deps, "env">, caller: Caller, input: { at: number }) =>
  outcome(async () => {
    requireSystem(caller);
    return pruneAudit(deps.env, input.at);
  });
