import type { Evaluation } from "../evaluation";
import type { Contract } from "../rpc-contract";
import { UNIT_TRAFFIC_CONTRACT } from "../unit-shell";

/**
 * Every Evaluation RPC with its retry class (see ../rpc-contract.ts). Like the practice run's, its
 * answers are values, never domain errors.
 */
export const EVALUATION_CONTRACT = {
  ...UNIT_TRAFFIC_CONTRACT,
  init: { repeatable: true },
  addTasks: { repeatable: true },
  start: { unrepeatable: true },
  cancel: { unrepeatable: true },
  view: { repeatable: true },
} as const satisfies Contract<Evaluation>;
