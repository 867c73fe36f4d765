import type { Policy } from "./run-types";

/**
 * How long the parts of a unit's life may last. One place, so the queue consumer, the webhook call
 * and the Durable Object that leases the unit agree (they once disagreed: a 1-hour webhook against
 * a 10-minute unit timeout was re-sent while still running).
 */

/** A claim's lease: the holder proves it is alive by a heartbeat within this; a dead holder's unit is re-sent after it. */
export const LEASE_MS = 45_000;
/** Holders renew their lease this often, a third of the lease, so one late heartbeat does not lose it. */
export const HEARTBEAT_MS = 15_000;
/** A sent unit whose message no consumer claimed within this is sent again (a lost message, a runtime that died). */
export const SENT_TIMEOUT_MS = 60_000;
/**
 * The longest a queue consumer waits on one unit's work. Consumers may run 15 minutes; this leaves
 * room for the unit they started last in a chain and for reporting.
 */
export const MAX_UNIT_WORK_MS = 12 * 60_000;
/** How long a webhook may answer after its timeout before the holder is deemed overdue (network, reporting). */
const REPORT_GRACE_MS = 30_000;
/** A unit whose lease lapsed this many times (its holder died or overran each time) is recorded as failed. */
export const MAX_LAPSES = 4;

/** How long the consumer waits for a policy webhook's answer: its own timeout, capped by what a consumer can wait. */
export const webhookWaitMs = (timeoutMs: number) => Math.min(timeoutMs, MAX_UNIT_WORK_MS);

/**
 * The latest moment a claimed unit's holder may still be working, from the claim: a webhook
 * rollout gets its policy's (capped) timeout; every other unit the consumer's limit.
 */
export function unitWorkMs(stage: string, policy: Policy | null): number {
  if (stage === "rollout" && policy?.kind === "webhook") return webhookWaitMs(policy.timeoutMs) + REPORT_GRACE_MS;
  return MAX_UNIT_WORK_MS;
}

/** How long a rollout answered with 202 waits for the agent's result: the policy's full timeout (up to an hour). */
export const awaitingMs = (policy: Policy | null) => (policy?.kind === "webhook" ? policy.timeoutMs : MAX_UNIT_WORK_MS);
