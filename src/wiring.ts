import type { Env } from "./env";
import { Evaluation as EvaluationObject } from "../durable-objects/evaluation";
import { PracticeRun as PracticeRunObject } from "../durable-objects/practice-run";
import { evaluationPorts, practiceRunPorts } from "./platform/objects/follow-up";

/**
 * The practice and evaluation Durable Object classes the Worker exports, each handed the ports its
 * follow-up work goes through (src/core/practice/ports.ts), implemented by src/platform/objects/follow-up.ts. The one
 * module that sees both a Durable Object class and the platform; only src/index.ts imports it.
 */

export class PracticeRun extends PracticeRunObject {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env, practiceRunPorts(env));
  }
}

export class Evaluation extends EvaluationObject {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env, evaluationPorts(env));
  }
}
