import type { MemoryKind } from "../../../src/core/memory-types";
import { caseReviewText } from "../../../src/core/served-fields";
import { DomainError } from "../../../src/core/errors";
import { parseJson, type MemoryContext } from "../storage/context";
import type { Library } from "../library/library";
import type { Cases } from "../episodes/cases";
import { ADMIN_APPROVAL, MENTION_REVIEW, type ScreeningPolicy } from "./screen";
import { buryLesson, unbury } from "./tombstones";

export interface HeldItem {
  id: string;
  kind: MemoryKind;
  status: "quarantined" | "pending";
  reason: string;
  /** The status it takes when released. */
  wanted: string;
  door: string;
  author: string;
  heldAt: number;
  text: string;
  pattern: string | null;
  keywords: string[];
  answer: string | null;
  /** A held case's trace of what was tried (served as "Tried: …" once released). */
  traceSummary: string | null;
}

/** One held entry as the safety reviewer sees it; the text doubles as the stamp a verdict must match. */
export interface ReviewItem {
  id: string;
  kind: MemoryKind;
  text: string;
  pattern: string | null;
  keywords: string[];
  when?: string | null;
  /** Why the content filter sent it to the review (it mentions injection wording), shown to the reviewer. */
  flag?: string;
}

export interface ReviewVerdict {
  id: string;
  kind: MemoryKind;
  text: string;
  /** The `when` that was reviewed with the text: a verdict applies only while both stand. */
  when?: string | null;
  safe: boolean;
  category: string;
  reason: string;
}

interface HeldRow extends Record<string, SqlStorageValue> {
  kind: string;
  id: string;
  status: string;
  text: string;
  pattern: string | null;
  keywords: string | null;
  when_text: string | null;
  answer: string | null;
  trace_summary: string | null;
  updated: number;
  reason: string | null;
  wanted: string | null;
  door: string | null;
  author: string | null;
  at: number | null;
}

const HELD_SQL = `
  SELECT h.*, q.reason, q.wanted, q.door, q.author, q.at FROM (
    SELECT 'experience' AS kind, id, status, text, pattern, keywords, when_text, NULL AS answer, NULL AS trace_summary, updated_at AS updated FROM experiences WHERE status IN ('quarantined', 'pending')
    UNION ALL
    SELECT 'case' AS kind, id, status, task AS text, NULL AS pattern, NULL AS keywords, NULL AS when_text, answer, trace_summary, updated_at AS updated FROM cases WHERE status IN ('quarantined', 'pending')
  ) h LEFT JOIN quarantine q ON q.item_id = h.id`;

const ADMIN: ScreeningPolicy = { door: "admin", admin: true };

/** Pending entries the LLM review decides: not those waiting for an admin (ADMISSION_MODE=review). */
const FOR_REVIEW = `h.status = 'pending' AND coalesce(q.reason, '') != '${ADMIN_APPROVAL.replace(/'/g, "''")}'`;

/** What the screening step holds back: listed for review, released or deleted by an admin, reviewed by the LLM. */
export class Quarantine {
  constructor(
    private readonly ctx: MemoryContext,
    private readonly library: Library,
    private readonly cases: Cases,
  ) {}

  list(opts: { kind?: MemoryKind; status?: "quarantined" | "pending"; limit: number; cursor?: string }): {
    items: HeldItem[];
    nextCursor: string | null;
  } {
    const rows = this.ctx.sql
      .exec<HeldRow>(
        `${HELD_SQL} WHERE h.id > ? AND (? IS NULL OR h.kind = ?) AND (? IS NULL OR h.status = ?) ORDER BY h.id LIMIT ?`,
        opts.cursor ?? "",
        opts.kind ?? null,
        opts.kind ?? null,
        opts.status ?? null,
        opts.status ?? null,
        opts.limit + 1,
      )
      .toArray();
    const page = rows.slice(0, opts.limit).map(heldOut);
    return { items: page, nextCursor: rows.length > opts.limit ? page[page.length - 1]!.id : null };
  }

  get(id: string): HeldItem {
    const row = this.ctx.sql.exec<HeldRow>(`${HELD_SQL} WHERE h.id = ?`, id).toArray()[0];
    if (!row) throw DomainError.notFound(`Nothing with id '${id}' is held in this agent's quarantine.`);
    return heldOut(row);
  }

  /** An admin's release: the entry takes the status it was written with, as it stands (no new check). */
  async release(id: string, author: string): Promise<{ id: string; kind: MemoryKind; status: string; libraryVersion: number | null }> {
    const held = this.get(id);
    if (held.kind === "case") {
      const c = await this.cases.patch(id, { status: held.wanted as "active" | "archived" }, ADMIN, author);
      return { id, kind: "case", status: c.status, libraryVersion: null };
    }
    unbury(this.ctx, id);
    const r = await this.library.apply([{ op: "update", id, patch: { status: held.wanted as "active" | "archived" } }], {
      reason: `released from quarantine (${held.reason})`.slice(0, 500),
      author,
      screening: ADMIN,
    });
    return { id, kind: "experience", status: r.experiences[0]?.status ?? held.wanted, libraryVersion: r.version };
  }

  async remove(id: string, author: string): Promise<{ id: string; kind: MemoryKind; libraryVersion: number | null }> {
    const held = this.get(id);
    if (held.kind === "case") {
      await this.cases.delete(id, ADMIN);
      return { id, kind: "case", libraryVersion: null };
    }
    buryLesson(this.ctx, id, held.text, held.reason, author);
    const r = await this.library.apply([{ op: "delete", id }], { reason: "deleted from quarantine", author, screening: ADMIN });
    return { id, kind: "experience", libraryVersion: r.version };
  }

  pending(limit: number): ReviewItem[] {
    return this.ctx.sql
      .exec<HeldRow>(`${HELD_SQL} WHERE ${FOR_REVIEW} ORDER BY h.updated, h.id LIMIT ?`, limit)
      .toArray()
      .map((r) => {
        const flag = r.reason?.startsWith(MENTION_REVIEW) ? { flag: r.reason.slice(MENTION_REVIEW.length) } : {};
        return r.kind === "case"
          ? {
              id: r.id,
              kind: "case",
              text: caseReviewText({ task: r.text, answer: r.answer, traceSummary: r.trace_summary }),
              pattern: null,
              keywords: [],
              ...flag,
            }
          : {
              id: r.id,
              kind: "experience",
              text: r.text,
              pattern: r.pattern,
              keywords: parseJson<string[]>(r.keywords, []),
              when: r.when_text,
              ...flag,
            };
      });
  }

  countPending(): number {
    return this.ctx.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM (${HELD_SQL} WHERE ${FOR_REVIEW})`).one().n;
  }

  /**
   * Applies the reviewer's verdicts to what is still pending with the text that was reviewed; an
   * entry edited meanwhile waits for its own review. Experiences change in one library version.
   */
  async applyReviews(verdicts: readonly ReviewVerdict[]): Promise<{ admitted: number; quarantined: number; stale: number }> {
    const current = new Map(this.pending(10_000).map((p) => [`${p.kind}:${p.id}`, p]));
    const fresh = verdicts.filter((v) => {
      const now = current.get(`${v.kind}:${v.id}`);
      return now?.text === v.text && (now.when ?? null) === (v.when ?? null);
    });
    const why = (v: ReviewVerdict) => `safety review: ${v.category}: ${v.reason}`.slice(0, 1000);
    const exps = fresh.filter((v) => v.kind === "experience");
    const out = {
      admitted: fresh.filter((v) => v.safe).length,
      quarantined: fresh.filter((v) => !v.safe).length,
      stale: verdicts.length - fresh.length,
    };
    if (exps.length) {
      const wanted = new Map(exps.map((v) => [v.id, this.get(v.id).wanted as "active" | "archived"]));
      const holdReason = Object.fromEntries(exps.filter((v) => !v.safe).map((v) => [v.id, why(v)]));
      await this.library.apply(
        exps.map((v) => ({ op: "update" as const, id: v.id, patch: { status: v.safe ? wanted.get(v.id)! : ("quarantined" as const) } })),
        {
          reason: `safety review: ${exps.filter((v) => v.safe).length} admitted, ${exps.filter((v) => !v.safe).length} quarantined`,
          author: "system:review",
          screening: { door: "review", internal: true, holdReason },
        },
      );
    }
    for (const v of fresh.filter((x) => x.kind === "case")) {
      const status = v.safe ? (this.get(v.id).wanted as "active" | "archived") : "quarantined";
      await this.cases.patch(v.id, { status }, { door: "review", internal: true, holdReason: why(v) }, "system:review");
    }
    return out;
  }
}

function heldOut(r: HeldRow): HeldItem {
  return {
    id: r.id,
    kind: r.kind as MemoryKind,
    status: r.status as HeldItem["status"],
    reason: r.reason ?? (r.status === "pending" ? "waiting for the LLM safety review" : "quarantined"),
    wanted: r.wanted ?? "active",
    door: r.door ?? "unknown",
    author: r.author ?? "unknown",
    heldAt: r.at ?? r.updated,
    text: r.text,
    pattern: r.pattern,
    keywords: parseJson<string[]>(r.keywords, []),
    answer: r.answer,
    traceSummary: r.trace_summary,
  };
}
