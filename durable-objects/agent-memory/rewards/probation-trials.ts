import {
  evidenceText,
  judge,
  PROBATION,
  type Exploration,
  type StoredVerdict,
  type TrialCounts,
  type Verdict,
} from "../../../src/core/probation";
import type { MemoryContext } from "../storage/context";
import type { Library } from "../library/library";
import type { CreditedRetrieval } from "./reward-learning";
import { textKey } from "../screening/tombstones";

interface TrialRow extends Record<string, SqlStorageValue> {
  status: string;
  probation: number;
  trial_shown: number;
  trial_shown_ok: number;
  trial_control: number;
  trial_control_ok: number;
}

/** Stored while the archive that retires a lesson has not been written yet (see settle). */
const RETIRING: StoredVerdict = "retiring";

const countsOf = (r: TrialRow): TrialCounts => ({
  shown: r.trial_shown,
  shownOk: r.trial_shown_ok,
  control: r.trial_control,
  controlOk: r.trial_control_ok,
});

/**
 * The outcomes of prompts that explored lessons on probation (src/core/probation.ts), and what
 * they decide. A reward adds one outcome per lesson however many of the episode's retrievals
 * matched it: to the shown arm if any of them showed it, else to the other. Only retrievals a
 * reward credits count (one outcome each), and never those of a read-scoped key.
 */
export class ProbationTrials {
  constructor(
    private readonly ctx: MemoryContext,
    private readonly library: Library,
  ) {}

  /**
   * Runs inside the reward's transaction. `success`: the task succeeded at the first try. A lesson
   * that graduates leaves probation at once; one that is retired is held out of prompts at once and
   * archived by `settle`, which the caller awaits after the transaction.
   */
  record(retrievals: readonly CreditedRetrieval[], success: boolean): void {
    const shown = new Set<string>();
    const control = new Set<string>();
    for (const r of retrievals) {
      if (r.readOnly || !r.trial) continue;
      for (const id of r.trial.shown) shown.add(id);
      for (const id of r.trial.control) control.add(id);
    }
    for (const id of shown) control.delete(id);
    const ok = success ? 1 : 0;
    for (const [ids, arm] of [
      [shown, "shown"],
      [control, "control"],
    ] as const) {
      for (const id of ids) {
        const row = this.ctx.sql
          .exec<TrialRow>(
            "SELECT status, probation, trial_shown, trial_shown_ok, trial_control, trial_control_ok FROM experiences WHERE id = ?",
            id,
          )
          .toArray()[0];
        // Decided meanwhile, rewritten (a new trial), or out of the library: this outcome is no evidence about it now.
        if (!row || row.status !== "active" || row.probation !== PROBATION.exploring) continue;
        const counts = countsOf(row);
        if (arm === "shown") counts.shown++, (counts.shownOk += ok);
        else counts.control++, (counts.controlOk += ok);
        this.ctx.sql.exec(
          "UPDATE experiences SET trial_shown = ?, trial_shown_ok = ?, trial_control = ?, trial_control_ok = ? WHERE id = ?",
          counts.shown,
          counts.shownOk,
          counts.control,
          counts.controlOk,
          id,
        );
        const judged = judge(counts);
        if (judged.verdict) this.decide(id, judged.verdict, evidenceText(counts, judged));
      }
    }
  }

  private decide(id: string, verdict: Verdict, reason: string): void {
    const probation = verdict === "graduated" ? PROBATION.trusted : PROBATION.held;
    this.ctx.sql.exec(
      "UPDATE experiences SET probation = ?, trial_verdict = ?, trial_reason = ?, trial_at = ? WHERE id = ?",
      probation,
      verdict === "retired" ? RETIRING : verdict,
      reason,
      this.ctx.now(),
      id,
    );
  }

  /**
   * Archives the lessons the evidence retired, each as its own library version whose reason is the
   * evidence. A retired lesson is out of prompts from the reward that decided it; if this fails, the
   * next reward's settle writes the version.
   */
  async settle(): Promise<void> {
    const due = this.ctx.sql
      .exec<{ id: string; trial_reason: string }>(
        `SELECT id, trial_reason FROM experiences WHERE trial_verdict = '${RETIRING}' AND status = 'active' ORDER BY seq`,
      )
      .toArray();
    for (const { id, trial_reason } of due) {
      await this.library.apply([{ op: "archive", id }], {
        reason: `retired on probation's evidence: ${trial_reason}`,
        author: "system:probation",
        screening: { door: "live", internal: true },
      });
      this.ctx.sql.exec("UPDATE experiences SET trial_verdict = 'retired' WHERE id = ? AND trial_verdict = ?", id, RETIRING);
    }
  }
}

/**
 * The lesson with this text (spacing and case aside) that the evidence of its trial retired, if
 * any: live learning does not learn it again, so a harmful lesson a noisy learner keeps proposing
 * costs its exposures once.
 */
export function retiredOnEvidence(sql: SqlStorage, text: string): string | null {
  const key = textKey(text);
  for (const r of sql
    .exec<{ id: string; text: string }>(`SELECT id, text FROM experiences WHERE trial_verdict IN ('retired', '${RETIRING}')`)
    .toArray())
    if (textKey(r.text) === key) return r.id;
  return null;
}

/**
 * Whether a lesson on probation that `episodeId`'s prompts showed, before the episode's first try
 * failed (live extraction runs only after a failure), is too weak to block a candidate with other
 * advice as its duplicate: that failure is evidence against it, so the candidate joins as its
 * rival and the trials of both decide. The same text is a duplicate all the same.
 */
export function challenges(sql: SqlStorage, episodeId: string, nearest: { id: string; text: string }, text: string): boolean {
  if (textKey(nearest.text) === textKey(text)) return false;
  for (const r of sql
    .exec<{ trial: string }>("SELECT trial FROM retrievals WHERE episode_id = ? AND trial IS NOT NULL", episodeId)
    .toArray())
    if ((JSON.parse(r.trial) as Exploration).shown.includes(nearest.id)) return true;
  return false;
}
