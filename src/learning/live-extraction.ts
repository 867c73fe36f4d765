import type { Env } from "../env";
import type { Logger } from "../core/logger";
import { BudgetExceededError, createLlm, llmConfigured } from "../llm";
import { fenceData, renderTemplate } from "../core/prompt-template";
import { LiveDecisionSchema, LiveInsightSchema, lessonToStore, type LiveDecision } from "../core/live-lesson";
import { assessLesson } from "../core/poison";
import { oneLine } from "../core/library-block";
import { clipWhen } from "../core/memory-types";
import { reviewLessons } from "./safety-review";
import type { LearnerMemory } from "./ports";
import extractTemplate from "../../prompts/live-extract.md";
import decideTemplate from "../../prompts/live-decide.md";

export interface LiveExtractJob {
  tenantId: string;
  agentId: string;
  episodeId: string;
  jobId: string;
  /** The agent's incarnation when the job was queued: a later agent of the same id refuses its writes. */
  incarnation?: string;
}

const SYSTEM = "You are Praxis's lesson extractor. Follow the task in the user message; answer only with the requested JSON.";
const EXTRACT_TEMPERATURE = 0.2;
const DECIDE_TEMPERATURE = 0.1;

/**
 * Turns an episode's contrast between failed and successful attempts into one lesson, then lets a
 * second call decide how it changes the library (ADD / UPDATE / DELETE / NOOP). Nothing is written
 * until the final step, which the AgentMemory DO applies as a single library version; an error
 * anywhere before it leaves the library untouched and the queue retries the whole job.
 */
export async function runLiveExtraction(job: LiveExtractJob, memory: LearnerMemory, env: Env, log: Logger): Promise<unknown> {
  const started = await memory.startLiveJob({ jobId: job.jobId, episodeId: job.episodeId, incarnation: job.incarnation });
  if (!started.input) return { skipped: `job already ${started.job.status}` };
  const input = started.input;

  if (!llmConfigured(env)) {
    await memory.finishJob({
      jobId: job.jobId,
      status: "skipped",
      reason: "skipped: no LLM configured (set LLM_BASE_URL and LLM_MODEL)",
      incarnation: job.incarnation,
    });
    return { skipped: "no LLM" };
  }
  const llm = createLlm(env, { tenantId: job.tenantId, agentId: job.agentId, logger: log });
  try {
    const failures = input.failures.map((f, i) => `${i + 1}. ${f.description}${f.error ? `\n   error: ${f.error}` : ""}`).join("\n");
    const successes = input.successes.length
      ? input.successes.map((s, i) => `${i + 1}. ${s.description}`).join("\n")
      : `The episode ended in success${input.answer ? ` with the answer: ${input.answer}` : ""}.`;
    const extraction = await llm.structured({
      role: "learner",
      purpose: "live-extract",
      schema: LiveInsightSchema,
      schemaName: "live_insight",
      temperature: EXTRACT_TEMPERATURE,
      messages: [
        { role: "system", content: SYSTEM },
        {
          role: "user",
          content: renderTemplate(extractTemplate, {
            task: fenceData("task", input.task),
            failures: fenceData("failed attempts", failures || "(none recorded)"),
            successes: fenceData("successful attempts", successes),
            outcome: fenceData("outcome", input.outcome ?? "unknown"),
          }),
        },
      ],
    });
    const candidate = { ...extraction.data, when: clipWhen(extraction.data.when) };
    if (!candidate.insight) {
      await memory.finishJob({
        jobId: job.jobId,
        status: "done",
        reason: "nothing learned: no explaining difference between attempts",
        incarnation: job.incarnation,
      });
      return { applied: "none" };
    }

    const similar = await memory.similarExperiences({
      lesson: { text: candidate.insight, pattern: candidate.pattern, keywords: candidate.keywords },
      k: 3,
    });
    let decision: LiveDecision;
    if (!similar.length) {
      decision = { operation: "ADD", text: candidate.insight, reason: "no similar lesson is stored yet" };
    } else {
      const existing = similar
        .map(
          (s) =>
            `- id: ${s.id} (similarity ${s.sim.toFixed(3)}${s.pinned ? ", pinned: compare only, never UPDATE or DELETE it" : ""})\n  ${oneLine(s.text)}`,
        )
        .join("\n");
      const decided = await llm.structured({
        role: "learner",
        purpose: "live-decide",
        schema: LiveDecisionSchema,
        schemaName: "library_decision",
        temperature: DECIDE_TEMPERATURE,
        messages: [
          { role: "system", content: SYSTEM },
          {
            role: "user",
            content: renderTemplate(decideTemplate, {
              candidate: fenceData(
                "candidate lesson",
                `pattern: ${candidate.pattern}\nkeywords: ${candidate.keywords.join(", ")}\ninsight: ${candidate.insight}`,
              ),
              existing: fenceData("stored lessons", existing),
            }),
          },
        ],
      });
      decision = decided.data;
    }
    // Text the cheap filter already rejects is quarantined by the DO without spending a review on it.
    const text = lessonToStore(candidate, decision);
    const lesson = { text, pattern: candidate.pattern, keywords: candidate.keywords, when: candidate.when || null };
    const review =
      text && !assessLesson(lesson).quarantined ? ((await reviewLessons(llm, [lesson], "live-safety-review")).verdicts[0] ?? null) : null;
    const context = { shownIds: similar.map((s) => s.id), review };
    const result = await memory.applyLiveLesson({
      jobId: job.jobId,
      episodeId: job.episodeId,
      candidate,
      decision,
      context,
      incarnation: job.incarnation,
    });
    log.info("live extraction applied", { episodeId: job.episodeId, ...result });
    return result;
  } catch (err) {
    if (err instanceof BudgetExceededError) {
      await memory.finishJob({ jobId: job.jobId, status: "skipped", reason: `skipped: ${err.message}`, incarnation: job.incarnation });
      return { skipped: "budget" };
    }
    throw err;
  }
}
