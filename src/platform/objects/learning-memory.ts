import type { Env } from "../../env";
import { resilientMemory, type Memory } from "./agent-access";

/**
 * What the background learners (src/learning: live extraction, the `when` writer, the safety
 * review) ask of an agent's memory. The learners hold no stub: each call is a function here.
 */
type AgentRef = { tenantId: string; agentId: string };
type Request<M extends keyof Memory> = Parameters<Memory[M]>[0];

const memoryOf = (env: Env, agent: AgentRef) => resilientMemory(env, agent.tenantId, agent.agentId);

/** Marks a live-extraction job running; `input` is null when the job already ended. */
export const startLiveJob = (env: Env, agent: AgentRef, req: Request<"startLiveJob">) => memoryOf(env, agent).startLiveJob(req);

export const finishJob = (env: Env, agent: AgentRef, req: Request<"finishJob">) => memoryOf(env, agent).finishJob(req);

export const similarLessons = (env: Env, agent: AgentRef, req: Request<"similarExperiences">) =>
  memoryOf(env, agent).similarExperiences(req);

export const applyLiveLesson = (env: Env, agent: AgentRef, req: Request<"applyLiveLesson">) => memoryOf(env, agent).applyLiveLesson(req);

export const lessonsWithoutWhen = (env: Env, agent: AgentRef, req: Request<"lessonsWithoutWhen">) =>
  memoryOf(env, agent).lessonsWithoutWhen(req);

export const applyWhen = (env: Env, agent: AgentRef, req: Request<"applyWhen">) => memoryOf(env, agent).applyWhen(req);

export const pendingReviews = (env: Env, agent: AgentRef, req: Request<"pendingReviews">) => memoryOf(env, agent).pendingReviews(req);

export const applyReviews = (env: Env, agent: AgentRef, req: Request<"applyReviews">) => memoryOf(env, agent).applyReviews(req);

export const pendingPhraseReviews = (env: Env, agent: AgentRef, req: Request<"pendingPhraseReviews">) =>
  memoryOf(env, agent).pendingPhraseReviews(req);

export const applyPhraseReviews = (env: Env, agent: AgentRef, req: Request<"applyPhraseReviews">) =>
  memoryOf(env, agent).applyPhraseReviews(req);
