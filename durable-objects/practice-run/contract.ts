import type { PracticeRun } from "../practice-run";
import type { Contract } from "../rpc-contract";
import { UNIT_TRAFFIC_CONTRACT } from "../unit-shell";

/**
 * Every PracticeRun RPC with its retry class (see ../rpc-contract.ts). The object answers its
 * refusals as values (a cancel of an ended run, a spent budget, an unknown rollout), so callers
 * read them without unwrapping an outcome.
 */
export const PRACTICE_RUN_CONTRACT = {
  ...UNIT_TRAFFIC_CONTRACT,
  init: { repeatable: true },
  addTasks: { repeatable: true },
  seal: { repeatable: true },
  start: { unrepeatable: true },
  cancel: { unrepeatable: true },
  reportAndNext: { unrepeatable: true },
  reserveCall: { unrepeatable: true },
  settleCall: { unrepeatable: true },
  requeue: { unrepeatable: true },
  view: { repeatable: true },
  steps: { repeatable: true },
  stepDetail: { repeatable: true },
  rollouts: { repeatable: true },
  library: { repeatable: true },
  curve: { repeatable: true },
  evaluationDone: { repeatable: true },
  events: { repeatable: true },
} as const satisfies Contract<PracticeRun>;
