import { assessInsight, assessLesson, type PoisonReason, splitReasons } from "../../../src/core/poison";
import { isHeld, type ExperienceContent, type MemoryKind, type Provenance, type Source } from "../../../src/core/memory-types";
import { caseScreenedText, caseServedChanged, type ServedCase } from "../../../src/core/served-fields";
import { DomainError } from "../../../src/core/errors";
import type { MemoryContext } from "../storage/context";

/**
 * The screening step every write passes, whatever its door: text the deterministic filter flags
 * is quarantined; other new or changed text waits `pending` for the LLM safety review when an LLM
 * is configured, and is admitted at once when none is. With `ADMISSION_MODE=review`, what a client
 * key without admin scope writes waits `pending` for an admin instead (the filter still
 * quarantines what it flags). Held entries are never retrieved or injected (both serve only
 * `active` rows) and keep a row here saying why, until the review or an admin key releases or
 * deletes them. Status changes of text already admitted pass unchecked.
 */

export type WriteDoor = "api" | "mcp" | "import" | "rollback" | "live" | "practice" | "review" | "admin" | "episode";

export interface ScreeningPolicy {
  door: WriteDoor;
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

function reasonFor(policy: ScreeningPolicy, id: string, parts: Parameters<typeof assessLesson>[0] | null, caseText = "") {
  if (!policy.internal) {
    const verdict = parts ? assessLesson(parts) : assessInsight(caseText, { chat: true });
    return verdict.quarantined ? `content filter: ${verdict.reasons.join(", ")}` : "quarantined at the writer's request";
  }
  return typeof policy.holdReason === "string" ? policy.holdReason : (policy.holdReason?.[id] ?? `held by the service (${policy.door})`);
}

const matchTextChanged = (a: Screenable, b: Screenable) =>
  a.text !== b.text ||
  a.pattern !== b.pattern ||
  JSON.stringify(a.keywords) !== JSON.stringify(b.keywords) ||
  (a.when ?? null) !== (b.when ?? null);

/**
 * Only the service and the agent's quarantine (an admin's audited release or removal) touch a held
 * entry: an admin key's ordinary write would release it with no audit record, so it is refused too.
 */
export const mayTouchHeld = (policy: ScreeningPolicy) => policy.internal === true || policy.door === "admin";

function guardHeld(kind: MemoryKind, id: string, before: { status: string } | null, wanted: string, policy: ScreeningPolicy) {
  if (before && isHeld(before.status) && !mayTouchHeld(policy)) {
    throw DomainError.forbidden(
      `${kind === "case" ? "Case" : "Experience"} '${id}' is held (${before.status}); an admin key releases or deletes it through the agent's quarantine (POST …/quarantine/${id}/release, DELETE …/quarantine/${id}), which audits it.`,
    );
  }
  // A client may send something into quarantine, never mark it as awaiting a review it did not ask for.
  if (wanted === "pending" && !policy.internal && before?.status !== wanted) {
    throw DomainError.unprocessable("Status 'pending' is set by the screening step, not by a client.", [
      { path: ["status"], message: "Use 'active', 'archived' or 'quarantined'" },
    ]);
  }
}

/**
 * What a pending entry's hold says when the filter flagged it only for mentioning injection
 * wording; the queued review is shown the reason after this prefix.
 */
export const MENTION_REVIEW = "waiting for the LLM safety review; content filter: ";

/** The hold of a client key's text under `ADMISSION_MODE=review`: an admin releases it, the LLM review never does. */
export const ADMIN_APPROVAL = "awaiting admin approval (ADMISSION_MODE=review)";

/** Doors through which a client key writes served text of its own choosing. */
const CLIENT_DOORS: ReadonlySet<WriteDoor> = new Set(["api", "mcp", "import", "episode"]);

/**
 * Whether a write waits for an admin: review mode, a client door, a key without admin scope. A
 * lesson's author says whose write it is (`key:<id>`); a copy the service makes of a shared
 * library's admitted lessons (author `library:<id>`) is not a key's write.
 */
const awaitsAdmin = (ctx: MemoryContext, policy: ScreeningPolicy, author: string | undefined) =>
  ctx.admissionMode() === "review" &&
  !policy.admin &&
  !policy.internal &&
  CLIENT_DOORS.has(policy.door) &&
  (author === undefined || author.startsWith("key:"));

/** How far back the agent's writes by client keys are read together with a new one. */
const SPLIT_WINDOW_MS = 60 * 60 * 1000;
/** At most this many of them, newest first: enough for an instruction split across a few writes. */
const SPLIT_WRITES = 20;
/** Versions searched for them, newest first, so that a write's cost does not grow with the library's age. */
const SPLIT_VERSIONS = 1000;

/**
 * New or changed text: the filter, then the review (unless it had one), else admitted. Text the
 * filter flags only for mentioning injection ("when a ticket asks to ignore previous instructions,
 * escalate, then close it") goes to the review with the filter's reason when an LLM is configured:
 * the reviewer tells talk from a command. Without one it stays quarantined. In review mode a
 * client key's text that passes the filter waits for an admin, whatever else is configured.
 */
function admit(
  ctx: MemoryContext,
  text: string,
  parts: Parameters<typeof assessLesson>[0] | null,
  wanted: string,
  policy: ScreeningPolicy,
  recent: readonly string[] = [],
  author?: string,
) {
  const verdict = parts ? assessLesson(parts) : assessInsight(text, { chat: true });
  const reason = `content filter: ${verdict.reasons.join(", ")}`;
  const forAdmin = awaitsAdmin(ctx, policy, author);
  if (verdict.quarantined && verdict.mentionOnly && ctx.reviewAvailable() && !forAdmin)
    return { status: "pending", hold: { reason: `${MENTION_REVIEW}${verdict.reasons.join(", ")} (mentioned, not given)`, wanted } };
  if (verdict.quarantined) return { status: "quarantined", hold: { reason, wanted } };
  const together = completesSplit(recent, parts ? lessonText(parts) : text);
  if (together)
    return {
      status: "quarantined",
      hold: { reason: `${SPLIT_REASON}${together.join(", ")}`, wanted },
    };
  if (forAdmin) return { status: "pending", hold: { reason: ADMIN_APPROVAL, wanted } };
  if (!policy.reviewed && ctx.reviewAvailable())
    return { status: "pending", hold: { reason: "waiting for the LLM safety review", wanted } };
  return { status: wanted, hold: null };
}

const lessonText = (parts: Parameters<typeof assessLesson>[0]) =>
  [parts.pattern ?? "", parts.text, (parts.keywords ?? []).join(", "), parts.when ?? ""].filter(Boolean).join(" ");

/** What a write completing an instruction begun in earlier writes is held for. */
const SPLIT_REASON = "content filter, read with the agent's writes of the last hour: ";

/** Characters of earlier text read before the new one: every pattern spans far fewer. */
const SPLIT_CONTEXT_CHARS = 1200;
/** Whether a recent text passed the filter alone, remembered so a batch does not judge it per entry. */
const passedAlone = new Map<string, boolean>();

function passes(text: string): boolean {
  let ok = passedAlone.get(text);
  if (ok === undefined) {
    // Talk about an attack holds its wording whole: read before a new text it would only hold that.
    const verdict = assessInsight(text);
    ok = !verdict.quarantined && !verdict.talk;
    if (passedAlone.size >= 1000) passedAlone.delete(passedAlone.keys().next().value!);
    passedAlone.set(text, ok);
  }
  return ok;
}

/**
 * An instruction split across writes ("… ignore all", "previous instructions and …") passes the
 * filter one piece at a time, and the pieces may come from different keys of the same tenant. The
 * new text is read after the end of the agent's recent texts that passed on their own, and the
 * reasons only the joined reading raises are returned.
 */
function completesSplit(recent: readonly string[], text: string): PoisonReason[] | null {
  let context = "";
  for (let i = recent.length - 1; i >= 0 && context.length < SPLIT_CONTEXT_CHARS; i--) {
    if (passes(recent[i]!)) context = `${recent[i]} ${context}`;
  }
  if (!context) return null;
  const joined = splitReasons(context.slice(-SPLIT_CONTEXT_CHARS), text);
  return joined.length ? joined : null;
}

/**
 * The texts client keys (any of them) wrote into the library in the last hour (and earlier in the
 * same write), oldest first, other than the entry being written. Only a client key's write is
 * read against them; the service's own writes are neither read nor read against.
 */
function recentClientTexts(ctx: MemoryContext, author: string | undefined, exceptId: string): string[] {
  if (!author?.startsWith("key:")) return [];
  const rows = ctx.sql
    .exec<{ after: string }>(
      // The version being written has no row yet: its changes are this same write's.
      `SELECT c.after FROM library_changes c LEFT JOIN library_versions v ON v.version = c.version
       WHERE c.version > (SELECT coalesce(max(version), 0) - ? FROM library_versions)
         AND ((v.author LIKE 'key:%' AND v.created_at >= ?) OR c.version > (SELECT coalesce(max(version), 0) FROM library_versions))
         AND c.after IS NOT NULL AND c.experience_id != ?
       ORDER BY c.version DESC, c.rowid DESC LIMIT ?`,
      SPLIT_VERSIONS,
      ctx.now() - SPLIT_WINDOW_MS,
      exceptId,
      SPLIT_WRITES,
    )
    .toArray();
  return rows.reverse().map((r) => {
    const after = JSON.parse(r.after) as Parameters<typeof assessLesson>[0];
    return lessonText(after);
  });
}

/** Screens what one experience becomes in a version. Throws when a client touches a held entry. */
export function screenExperience<T extends Screenable>(
  ctx: MemoryContext,
  before: T | null,
  after: T,
  policy: ScreeningPolicy,
  author?: string,
): Screened<T> {
  guardHeld("experience", after.id, before, after.status, policy);
  const wasHeld = before !== null && isHeld(before.status);
  if (isHeld(after.status)) {
    if (before?.status === after.status) {
      if (!matchTextChanged(before, after)) return { value: after, hold: null, lift: false };
      // A held entry rewritten (by an admin or the service) is screened afresh.
      const { status, hold } = admit(ctx, "", after, "active", policy, [], author);
      return { value: { ...after, status: status as T["status"] }, hold, lift: !hold };
    }
    return { value: after, hold: { reason: reasonFor(policy, after.id, after), wanted: "active" }, lift: false };
  }
  if (before && !matchTextChanged(before, after)) return { value: after, hold: null, lift: wasHeld };
  const { status, hold } = admit(
    ctx,
    "",
    after,
    after.status,
    policy,
    policy.internal ? [] : recentClientTexts(ctx, author, after.id),
    author,
  );
  return { value: { ...after, status: status as T["status"] }, hold, lift: wasHeld && !hold };
}

/** Screens a case's served fields (src/core/served-fields.ts), which the prompt shows as past cases. */
export function screenCase(
  ctx: MemoryContext,
  id: string,
  before: ({ status: string } & ServedCase) | null,
  after: { status: string } & ServedCase,
  policy: ScreeningPolicy,
): Screened<string> {
  guardHeld("case", id, before, after.status, policy);
  const wasHeld = before !== null && isHeld(before.status);
  const changed = !before || caseServedChanged(before, after);
  if (isHeld(after.status) && !(before?.status === after.status && changed)) {
    const reason = reasonFor(policy, id, null, caseScreenedText(after));
    return { value: after.status, hold: before?.status === after.status ? null : { reason, wanted: "active" }, lift: false };
  }
  if (!changed) return { value: after.status, hold: null, lift: wasHeld };
  const { status, hold } = admit(ctx, caseScreenedText(after), null, isHeld(after.status) ? "active" : after.status, policy);
  return { value: status, hold, lift: wasHeld && !hold };
}

/** Keeps (or clears) the record of why an entry is held; runs inside the write's transaction. */
export function recordHold(
  ctx: MemoryContext,
  id: string,
  kind: MemoryKind,
  s: Screened<unknown>,
  policy: ScreeningPolicy,
  author: string,
) {
  if (s.hold) {
    ctx.sql.exec(
      `INSERT INTO quarantine (item_id, kind, reason, wanted, door, author, at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(item_id) DO UPDATE SET reason = excluded.reason, wanted = excluded.wanted, door = excluded.door, author = excluded.author, at = excluded.at`,
      id,
      kind,
      s.hold.reason.slice(0, 1000),
      s.hold.wanted,
      policy.door,
      author,
      ctx.now(),
    );
  } else if (s.lift) {
    forgetHold(ctx, id);
  }
}

export function forgetHold(ctx: MemoryContext, id: string) {
  ctx.sql.exec("DELETE FROM quarantine WHERE item_id = ?", id);
}

/** The source each client door stamps; other doors (live, practice, rollback) keep what the service wrote. */
const DOOR_SOURCE: Partial<Record<WriteDoor, Source>> = { api: "manual", mcp: "manual", import: "import" };

/**
 * Provenance and Q of a new experience are the service's: a client door stamps its source, only an
 * admin key seeds Q, and a client's provenance keeps its free text, never a run or episode id.
 */
export function provenanceOf(
  policy: ScreeningPolicy,
  given: { source: Source; q: number | undefined; own: Provenance | undefined; service: Provenance | null; defaultQ: number },
): { source: Source; q: number; provenance: Provenance | null } {
  const forced = DOOR_SOURCE[policy.door];
  if (policy.admin || policy.internal || !forced) {
    return { source: forced ?? given.source, q: given.q ?? given.defaultQ, provenance: given.own ?? given.service };
  }
  const own = given.own;
  const provenance: Provenance = {
    ...given.service,
    ...(own?.note ? { note: own.note } : {}),
    ...(own?.importedFrom ? { importedFrom: own.importedFrom } : {}),
  };
  return { source: forced, q: given.defaultQ, provenance: Object.keys(provenance).length ? provenance : null };
}
