import {
  CaseCreateSchema,
  CasePatchSchema,
  isHeld,
  type Case,
  type CaseCreate,
  type CasePatch,
  type ListFilter,
} from "../../../src/core/memory-types";
import { DomainError } from "../../../src/core/errors";
import { nextSeq, type MemoryContext } from "../storage/context";
import { listPage } from "../storage/list-page";
import { caseOut, type CaseRow } from "../storage/rows";
import type { RecordResult } from "../storage/idempotency";
import { forgetHold, mayTouchHeld, recordHold, screenCase, type ScreeningPolicy } from "../screening/screen";

export interface CaseCreated {
  case: Case;
  created: boolean;
}

/** Rounds of embedding before a create whose embedder keeps being swapped gives up. */
const EMBED_ATTEMPTS = 3;
const CLIENT_CASE: ScreeningPolicy = { door: "api" };

/** Past episodes kept for case-based reasoning; retrieved by task similarity. */
export class Cases {
  constructor(private readonly ctx: MemoryContext) {}

  row(id: string): CaseRow | null {
    return this.ctx.sql.exec<CaseRow>("SELECT * FROM cases WHERE id = ?", id).toArray()[0] ?? null;
  }

  get(id: string): Case {
    const row = this.row(id);
    if (!row) throw DomainError.notFound(`Case '${id}' does not exist.`);
    return caseOut(row);
  }

  /**
   * An episode is stored at most once: a second create for the same episode returns the first.
   * The vector is computed by the embedder of the store it is written to: if the embedder was
   * swapped while embedding, the task is embedded again rather than filed under the new model.
   */
  async create(input: CaseCreate, record?: RecordResult<CaseCreated>, policy: ScreeningPolicy = CLIENT_CASE): Promise<CaseCreated> {
    const parsed = CaseCreateSchema.safeParse(input);
    if (!parsed.success) throw DomainError.unprocessable("Invalid case", parsed.error.issues);
    const c = parsed.data;
    const existing = () =>
      c.episodeId ? this.ctx.sql.exec<CaseRow>("SELECT * FROM cases WHERE episode_id = ?", c.episodeId).toArray()[0] : undefined;
    const found = existing();
    if (found) return this.recorded({ case: caseOut(found), created: false }, record);
    for (let attempt = 1; attempt <= EMBED_ATTEMPTS; attempt++) {
      const vectors = this.ctx.vectors;
      const [vector] = await vectors.embed([c.task]);
      if (vectors !== this.ctx.vectors) continue;
      const id = this.ctx.newId("case");
      const now = this.ctx.now();
      const label = c.label ?? (c.reward > 0 ? "positive" : "negative");
      // Task, answer and trace are injected into prompts as past cases: they pass screening like a lesson.
      const screened = screenCase(
        this.ctx,
        id,
        null,
        { status: "active", task: c.task, answer: c.answer, traceSummary: c.traceSummary },
        policy,
      );
      const status = screened.value;
      const result = this.ctx.storage.transactionSync((): CaseCreated => {
        const raced = existing();
        if (raced) return this.recorded({ case: caseOut(raced), created: false }, record);
        recordHold(this.ctx, id, "case", screened, policy, policy.door);
        this.ctx.sql.exec(
          `INSERT INTO cases (id, seq, task, trace_summary, answer, reward, label, tools, tags, episode_id, status, q, created_at, updated_at, metadata)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          id,
          nextSeq(this.ctx.sql, "case"),
          c.task,
          c.traceSummary,
          c.answer,
          c.reward,
          label,
          JSON.stringify(c.toolsUsed),
          JSON.stringify(c.tags),
          c.episodeId,
          status,
          this.ctx.config().defaultQ,
          now,
          now,
          JSON.stringify(c.metadata),
        );
        vectors.writeSync(id, "case", vector!);
        return this.recorded({ case: this.get(id), created: true }, record);
      });
      if (result.created && status === "active") await vectors.publish([id], []);
      if (result.created && status === "pending") await this.ctx.requestReview();
      return result;
    }
    throw DomainError.retryLater("The embedder changed repeatedly while this case was being embedded; retry it.");
  }

  private recorded(result: CaseCreated, record: RecordResult<CaseCreated> | undefined): CaseCreated {
    record?.(result);
    return result;
  }

  async patch(id: string, input: CasePatch, policy: ScreeningPolicy = CLIENT_CASE, author = "client"): Promise<Case> {
    const parsed = CasePatchSchema.safeParse(input);
    if (!parsed.success) throw DomainError.unprocessable("Invalid patch", parsed.error.issues);
    const row = this.row(id);
    if (!row) throw DomainError.notFound(`Case '${id}' does not exist.`);
    const p = parsed.data;
    const answer = p.answer !== undefined ? p.answer : row.answer;
    const traceSummary = p.traceSummary !== undefined ? p.traceSummary : row.trace_summary;
    // A new answer or trace passes screening like a new case; a held case leaves only by review or the quarantine.
    const screened = screenCase(
      this.ctx,
      id,
      { status: row.status, task: row.task, answer: row.answer, traceSummary: row.trace_summary },
      { status: p.status ?? row.status, task: row.task, answer, traceSummary },
      policy,
    );
    const status = screened.value;
    recordHold(this.ctx, id, "case", screened, policy, author);
    this.ctx.sql.exec(
      "UPDATE cases SET tags = ?, label = ?, status = ?, answer = ?, trace_summary = ?, metadata = ?, updated_at = ? WHERE id = ?",
      p.tags ? JSON.stringify(p.tags) : row.tags,
      p.label ?? row.label,
      status,
      answer,
      traceSummary,
      p.metadata ? JSON.stringify(p.metadata) : row.metadata,
      this.ctx.now(),
      id,
    );
    if (status !== row.status) await this.ctx.vectors.publish(status === "active" ? [id] : [], status === "active" ? [] : [id]);
    if (status === "pending" && row.status !== "pending") await this.ctx.requestReview();
    return this.get(id);
  }

  async delete(id: string, policy: ScreeningPolicy = CLIENT_CASE): Promise<void> {
    const row = this.row(id);
    if (!row) throw DomainError.notFound(`Case '${id}' does not exist.`);
    if (isHeld(row.status) && !mayTouchHeld(policy)) {
      throw DomainError.forbidden(`Case '${id}' is held (${row.status}); an admin key deletes it through the agent's quarantine.`);
    }
    this.ctx.storage.transactionSync(() => {
      forgetHold(this.ctx, id);
      this.ctx.sql.exec("DELETE FROM cases WHERE id = ?", id);
      this.ctx.sql.exec("DELETE FROM q_history WHERE item_id = ?", id);
      this.ctx.vectors.deleteSync(id);
    });
    await this.ctx.vectors.publish([], [id]);
  }

  list(filter: ListFilter): { items: Case[]; nextCursor: string | null } {
    return listPage<CaseRow, Case>(this.ctx.sql, "cases", "task", filter, caseOut);
  }
}
