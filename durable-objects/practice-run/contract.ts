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
  init: { read: true },
  addTasks: { read: true },
  seal: { read: true },
  start: { once: true },
  cancel: { once: true },
  reportAndNext: { once: true },
  reserveCall: { once: true },
  settleCall: { once: true },
  requeue: { once: true },
  view: { read: true },
  steps: { read: true },
  stepDetail: { read: true },
  rollouts: { read: true },
  library: { read: true },
  curve: { read: true },
  evaluationDone: { read: true },
  events: { read: true },
} as const satisfies Contract<PracticeRun>;
