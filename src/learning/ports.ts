import type { AgentMemory } from "../../durable-objects/agent-memory";
import type { Resilient } from "../../durable-objects/rpc-contract";

/**
 * What the background learners (live extraction, the `when` writer, the safety review) ask of an
 * agent's memory: the agent's object, handed in by the queue handler, so a learner holds no stub.
 */
export type LearnerMemory = Pick<
  Resilient<AgentMemory>,
  | "startLiveJob"
  | "finishJob"
  | "similarExperiences"
  | "applyLiveLesson"
  | "lessonsWithoutWhen"
  | "applyWhen"
  | "pendingReviews"
  | "applyReviews"
  | "pendingPhraseReviews"
  | "applyPhraseReviews"
>;
