import { assessInsight, assessLesson } from "../../src/core/poison";
import { isHeld, type ExperienceContent, type MemoryKind, type Provenance, type Source } from "../../src/core/memory-types";
import { caseAdmissionText, caseServedChanged, type ServedCase } from "../../src/core/served-fields";
import { MemoryError } from "../memory-error";
import type { MemoryContext } from "./context";

/**
 * The admission step every write passes, whatever its door: text the deterministic filter flags
 * is quarantined; other new or changed text waits `pending` for the LLM safety review when an LLM
 * is configured, and is admitted at once when none is. Held entries are never retrieved or
 * injected (both serve only `active` rows) and keep a row here saying why, until the review or an
 * admin key releases or deletes them. Status changes of text already admitted pass unchecked.
 */

export type AdmissionDoor = "api" | "mcp" | "import" | "rollback" | "live" | "practice" | "review" | "admin" | "episode";

export interface AdmissionPolicy {
  door: AdmissionDoor;
  /** The text already passed the LLM safety review (live extraction, a practice run's plan review). */
  reviewed?: boolean;
  /** Called with an admin key: may release held entries, keep a seeded Q, name a source. */
  admin?: boolean;
  /** Written by the service itself: may set and lift held statuses. */
  internal?: boolean;
  /** Why the service writes an entry as quarantined: one reason for all, or one per id. */
  holdReason?: string | Record<string, string>;
}

/** What a held entry waits for: the status it is released to and why it is held. */
export interface Hold {
  reason: string;
  wanted: string;
}

export interface Screened<T> {
  value: T;
  hold: Hold | null;
  /** The entry leaves quarantine or review with this write. */
  lift: boolean;
}

type Screenable = Pick<ExperienceContent, "text" | "pattern" | "keywords" | "status"> & { id: string; when?: string | null };

function reasonFor(policy: AdmissionPolicy, id: string, parts: Parameters<typeof assessLesson>[0]) {
  if (!policy.internal) {
    const verdict = assessLesson(parts);
    return verdict.quarantined ? `content filter: ${verdict.reasons.join(", ")}` : "quarantined at the writer's request";
  }
  return typeof policy.holdReason === "string" ? policy.holdReason : (policy.holdReason?.[id] ?? `held by the service (${policy.door})`);
}

const matchTextChanged = (a: Screenable, b: Screenable) =>
  a.text !== b.text || a.pattern !== b.pattern || JSON.stringify(a.keywords) !== JSON.stringify(b.keywords) || (a.when ?? null) !== (b.when ?? null);

/**
 * Only the service and the agent's quarantine (an admin's audited release or removal) touch a held
 * entry: an admin key's ordinary write would release it with no audit record, so it is refused too.
 */
export const mayTouchHeld = (policy: AdmissionPolicy) => policy.internal === true || policy.door === "admin";

function guardHeld(kind: MemoryKind, id: string, before: { status: string } | null, wanted: string, policy: AdmissionPolicy) {
  if (before && isHeld(before.status) && !mayTouchHeld(policy)) {
    throw MemoryError.forbidden(
      `${kind === "case" ? "Case" : "Experience"} '${id}' is held (${before.status}); an admin key releases or deletes it through the agent's quarantine (POST …/quarantine/${id}/release, DELETE …/quarantine/${id}), which audits it.`,
    );
  }
  // A client may send something into quarantine, never mark it as awaiting a review it did not ask for.
  if (wanted === "pending" && !policy.internal && before?.status !== wanted) {
    throw MemoryError.invalid("Status 'pending' is set by the admission step, not by a client.", [
      { path: ["status"], message: "Use 'active', 'archived' or 'quarantined'" },
    ]);
  }
}

/** New or changed text: the filter, then the review (unless it had one), else admitted. */
function admit(ctx: MemoryContext, text: string, parts: Parameters<typeof assessLesson>[0] | null, wanted: string, policy: AdmissionPolicy) {
  const verdict = parts ? assessLesson(parts) : assessInsight(text);
  if (verdict.quarantined) return { status: "quarantined", hold: { reason: `content filter: ${verdict.reasons.join(", ")}`, wanted } };
  if (!policy.reviewed && ctx.reviewAvailable()) return { status: "pending", hold: { reason: "waiting for the LLM safety review", wanted } };
  return { status: wanted, hold: null };
}

/** Screens what one experience becomes in a version. Throws when a client touches a held entry. */
export function screenExperience<T extends Screenable>(ctx: MemoryContext, before: T | null, after: T, policy: AdmissionPolicy): Screened<T> {
  guardHeld("experience", after.id, before, after.status, policy);
  const wasHeld = before !== null && isHeld(before.status);
  if (isHeld(after.status)) {
    if (before?.status === after.status) {
      if (!matchTextChanged(before, after)) return { value: after, hold: null, lift: false };
      // A held entry rewritten (by an admin or the service) is screened afresh.
      const { status, hold } = admit(ctx, "", after, "active", policy);
      return { value: { ...after, status: status as T["status"] }, hold, lift: !hold };
    }
    return { value: after, hold: { reason: reasonFor(policy, after.id, after), wanted: "active" }, lift: false };
  }
  if (before && !matchTextChanged(before, after)) return { value: after, hold: null, lift: wasHeld };
  const { status, hold } = admit(ctx, "", after, after.status, policy);
  return { value: { ...after, status: status as T["status"] }, hold, lift: wasHeld && !hold };
}

/** Screens a case's served fields (src/core/served-fields.ts), which the prompt shows as past cases. */
export function screenCase(
  ctx: MemoryContext,
  id: string,
  before: ({ status: string } & ServedCase) | null,
  after: { status: string } & ServedCase,
  policy: AdmissionPolicy,
): Screened<string> {
  guardHeld("case", id, before, after.status, policy);
  const wasHeld = before !== null && isHeld(before.status);
  const changed = !before || caseServedChanged(before, after);
  if (isHeld(after.status) && !(before?.status === after.status && changed)) {
    const reason = reasonFor(policy, id, { text: caseAdmissionText(after) });
    return { value: after.status, hold: before?.status === after.status ? null : { reason, wanted: "active" }, lift: false };
  }
  if (!changed) return { value: after.status, hold: null, lift: wasHeld };
  const { status, hold } = admit(ctx, caseAdmissionText(after), null, isHeld(after.status) ? "active" : after.status, policy);
  return { value: status, hold, lift: wasHeld && !hold };
}

/** Keeps (or clears) the record of why an entry is held; runs inside the write's transaction. */
export function recordHold(ctx: MemoryContext, id: string, kind: MemoryKind, s: Screened<unknown>, policy: AdmissionPolicy, author: string) {
  if (s.hold) {
    ctx.sql.exec(
      `INSERT INTO quarantine (item_id, kind, reason, wanted, door, author, at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(item_id) DO UPDATE SET reason = excluded.reason, wanted = excluded.wanted, door = excluded.door, author = excluded.author, at = excluded.at`,
      id, kind, s.hold.reason.slice(0, 1000), s.hold.wanted, policy.door, author, ctx.now(),
    );
  } else if (s.lift) {
    forgetHold(ctx, id);
  }
}

export function forgetHold(ctx: MemoryContext, id: string) {
  ctx.sql.exec("DELETE FROM quarantine WHERE item_id = ?", id);
}

/** The source each client door stamps; other doors (live, practice, rollback) keep what the service wrote. */
const DOOR_SOURCE: Partial<Record<AdmissionDoor, Source>> = { api: "manual", mcp: "manual", import: "import" };

/**
 * Provenance and Q of a new experience are the service's: a client door stamps its source, only an
 * admin key seeds Q, and a client's provenance keeps its free text, never a run or episode id.
 */
export function provenanceOf(
  policy: AdmissionPolicy,
  given: { source: Source; q: number | undefined; own: Provenance | undefined; service: Provenance | null; defaultQ: number },
): { source: Source; q: number; provenance: Provenance | null } {
  const forced = DOOR_SOURCE[policy.door];
  if (policy.admin || policy.internal || !forced) {
    return { source: forced ?? given.source, q: given.q ?? given.defaultQ, provenance: given.own ?? given.service };
  }
  const own = given.own;
  const provenance: Provenance = { ...given.service, ...(own?.note ? { note: own.note } : {}), ...(own?.importedFrom ? { importedFrom: own.importedFrom } : {}) };
  return { source: forced, q: given.defaultQ, provenance: Object.keys(provenance).length ? provenance : null };
}
