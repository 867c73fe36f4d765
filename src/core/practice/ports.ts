import type { TaskRewards } from "../evaluation/decision";
import type { EvaluationView } from "../evaluation/types";
import type { EvalSplit } from "./gate";
import type { RunExperience } from "./plan";
import type { Promotion, RunConfig, RunStatus } from "./run-types";

/**
 * The ports of the practice and evaluation Durable Objects: the one way their follow-up work
 * (launching and stopping evaluations, promoting a library, mirroring a row into D1, admitting
 * queued runs, reporting to a run) leaves the object. Declared here, below the objects, and
 * implemented by the platform (src/platform/objects/follow-up.ts); the Worker's entry hands each object
 * its ports (src/wiring.ts). So a Durable Object never imports a service, yet the work it starts
 * runs through the same code the doors use. Each call is safe to repeat: the object calls it again
 * from its alarm until it has recorded that it is done.
 */

/** A task as a run or an evaluation keeps it, frozen when it was created. */
export interface FrozenTask {
  taskId: string;
  task: string;
  groundTruth: string | null;
}

/** What a settled held-out evaluation reports back to its run. */
export interface EvaluationOutcome {
  status: "completed" | "failed";
  accuracy: number | null;
  interval: [number, number] | null;
  /** Each task's rewards, one per sample: what the gate pairs with another library's (absent from evaluations settled before it was reported). */
  tasks?: TaskRewards[] | null;
  tokens: number;
  costUsd: number;
  error: string | null;
}

/** Who a run belongs to and how it practised: what its follow-up work needs to know. */
export interface RunFacts {
  runId: string;
  tenantId: string;
  agentId: string;
  datasetId: string;
  config: RunConfig;
  /** How the run is ending, once its last step (or its budget) is done. */
  finishing: "completed" | "budget-exhausted" | null;
  /** Why a `best` run stopped before its last epoch. */
  stoppedEarly: string | null;
  /** The agent's incarnation the run was set up for: a re-created agent of the same id refuses its promotion. */
  agentIncarnation?: string | null;
}

/**
 * One of a run's libraries to evaluate on one of its frozen task sets (epoch 0 is the starting
 * library). `seed` fixes the sampling seeds: two libraries evaluated with the same seed draw the
 * same seed for each task and sample, which is what pairs them.
 */
export interface RunEvaluationRequest {
  evaluationId: string;
  epoch: number;
  split: EvalSplit;
  seed: number;
  library: RunExperience[];
}

/** What a run mirrors into its D1 row, for listing. */
export interface RunRowFields {
  status: RunStatus;
  summary: Record<string, unknown>;
  error: string | null;
}

export interface PracticeRunPorts {
  /**
   * Starts the evaluation of one of the run's libraries on the given frozen tasks. A problem retrying cannot fix
   * (a verifier that cannot score the tasks) comes back as the evaluation's outcome; anything else
   * throws and the run's alarm tries again.
   */
  launchEvaluation(run: RunFacts, evaluation: RunEvaluationRequest, tasks: FrozenTask[]): Promise<EvaluationOutcome | null>;
  /** A launched evaluation's outcome once it has settled; null while it is still going. */
  evaluationOutcome(evaluationId: string): Promise<EvaluationOutcome | null>;
  cancelEvaluation(evaluationId: string, reason: string): Promise<void>;
  /** Writes the chosen library to the agent (or the shared library the run practised) as one `practice` version, at most once per run. */
  promote(run: RunFacts, start: RunExperience[], final: RunExperience[], why: string): Promise<Omit<Promotion, "epoch">>;
  syncRow(runId: string, fields: RunRowFields): Promise<void>;
  /** A run of the tenant ended: queued runs may now start. */
  admitQueued(tenantId: string): Promise<void>;
}

export interface EvaluationPorts {
  /** Mirrors the evaluation's status and result into its D1 row. */
  syncRow(view: EvaluationView): Promise<void>;
  /** Tells the practice run that owns a settled evaluation (if any) how it went. */
  reportToRun(view: EvaluationView): Promise<void>;
}
