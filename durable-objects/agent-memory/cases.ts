import { CaseCreateSchema, CasePatchSchema, type Case, type CaseCreate, type CasePatch, type ListFilter } from "../../src/core/memory-types";
import { MemoryError } from "../memory-error";
import { nextSeq, type MemoryContext } from "./context";
import { listPage } from "./list-page";
import { caseOut, type CaseRow } from "./rows";
import { assessInsight } from "../../src/core/poison";

/** Task and answer are injected into prompts as past cases, so they pass the same poisoning checks as lessons. */
const caseStatus = (task: string, answer: string | null) => (assessInsight([task, answer ?? ""].join("\n")).quarantined ? "quarantined" : "active");

/** Past episodes kept for case-based reasoning; retrieved by task similarity. */
export class Cases {
  constructor(private readonly ctx: MemoryContext) {}

  row(id: string): CaseRow | null {
    return this.ctx.sql.exec<CaseRow>("SELECT * FROM cases WHERE id = ?", id).toArray()[0] ?? null;
  }

  get(id: string): Case {
    const row = this.row(id);
    if (!row) throw MemoryError.notFound(`Case '${id}' does not exist.`);
    return caseOut(row);
  }

  /** An episode is stored at most once: a second create for the same episode returns the first. */
  async create(input: CaseCreate): Promise<{ case: Case; created: boolean }> {
    const parsed = CaseCreateSchema.safeParse(input);
    if (!parsed.success) throw MemoryError.invalid("Invalid case", parsed.error.issues);
    const c = parsed.data;
    if (c.episodeId) {
      const existing = this.ctx.sql.exec<CaseRow>("SELECT * FROM cases WHERE episode_id = ?", c.episodeId).toArray()[0];
      if (existing) return { case: caseOut(existing), created: false };
    }
    const [vector] = await this.ctx.vectors.embed([c.task]);
    const id = this.ctx.newId("case");
    const now = this.ctx.now();
    const label = c.label ?? (c.reward > 0 ? "positive" : "negative");
    const status = caseStatus(c.task, c.answer);
    const inserted = this.ctx.storage.transactionSync(() => {
      if (c.episodeId && this.ctx.sql.exec("SELECT 1 FROM cases WHERE episode_id = ?", c.episodeId).toArray().length) return false;
      this.ctx.sql.exec(
        `INSERT INTO cases (id, seq, task, trace_summary, answer, reward, label, tools, tags, episode_id, status, q, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        id, nextSeq(this.ctx.sql, "case"), c.task, c.traceSummary, c.answer, c.reward, label,
        JSON.stringify(c.toolsUsed), JSON.stringify(c.tags), c.episodeId, status, this.ctx.config().defaultQ, now, now,
      );
      this.ctx.vectors.writeSync(id, "case", vector!);
      return true;
    });
    if (!inserted) return { case: caseOut(this.ctx.sql.exec<CaseRow>("SELECT * FROM cases WHERE episode_id = ?", c.episodeId).one()), created: false };
    if (status === "active") await this.ctx.vectors.publish([id], []);
    return { case: this.get(id), created: true };
  }

  async patch(id: string, input: CasePatch): Promise<Case> {
    const parsed = CasePatchSchema.safeParse(input);
    if (!parsed.success) throw MemoryError.invalid("Invalid patch", parsed.error.issues);
    const row = this.row(id);
    if (!row) throw MemoryError.notFound(`Case '${id}' does not exist.`);
    const p = parsed.data;
    const answer = p.answer !== undefined ? p.answer : row.answer;
    // New answer text is checked like a new case; releasing a quarantined case is an explicit status change.
    const status = p.answer !== undefined && caseStatus(row.task, answer) === "quarantined" ? "quarantined" : (p.status ?? row.status);
    this.ctx.sql.exec(
      "UPDATE cases SET tags = ?, label = ?, status = ?, answer = ?, trace_summary = ?, updated_at = ? WHERE id = ?",
      p.tags ? JSON.stringify(p.tags) : row.tags,
      p.label ?? row.label,
      status,
      answer,
      p.traceSummary !== undefined ? p.traceSummary : row.trace_summary,
      this.ctx.now(),
      id,
    );
    if (status !== row.status) await this.ctx.vectors.publish(status === "active" ? [id] : [], status === "active" ? [] : [id]);
    return this.get(id);
  }

  async delete(id: string): Promise<void> {
    if (!this.row(id)) throw MemoryError.notFound(`Case '${id}' does not exist.`);
    this.ctx.storage.transactionSync(() => {
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
