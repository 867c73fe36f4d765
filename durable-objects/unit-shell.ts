import { DurableObject } from "cloudflare:workers";
import type { Env } from "../src/env";
import type { JobMessage } from "../src/core/job-messages";
import { createLogger } from "../src/core/logger";
import type { Claim, RolloutOutcome, UnitData, UnitResult } from "../src/core/practice/units";
import { newHolder, type Holder } from "./unit-ledger";
import type { Contract } from "./rpc-contract";
import { variables } from "../src/config";

/** What a machine whose units go through the unit ledger answers (the practice run's and the evaluation's). */
export interface UnitMachine {
  claim(key: string, holder: Holder): Claim;
  release(key: string, lease: number): void;
  heartbeat(key: string, lease: number): boolean;
  report(key: string, result: UnitResult): boolean;
  rolloutResult(key: string, dispatchId: string, secretHash: string | null, data: UnitData["rollout"]): RolloutOutcome;
  takeDispatch(): string[];
  unsend(keys: readonly string[]): void;
  sweepOverdue(): void;
  nextAlarm(): number | null;
}

/** Queue sendBatch takes at most 100 messages. */
const SEND_BATCH = 100;

/**
 * Runs an effects pass so that passes never overlap: a request that arrives while one is under way
 * only asks for one more pass after it, and waits for that.
 */
class SerialPasses {
  private running: Promise<void> | null = null;
  private again = false;

  constructor(private readonly pass: () => Promise<void>) {}

  request(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.pass();
        } while (this.again);
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }
}

/** Enqueues one message per unit key, in batches; a batch that fails to send goes to `unsent` for the alarm to retry. */
async function sendUnits<B>(
  queue: Queue<B>,
  keys: readonly string[],
  body: (key: string) => B,
  unsent: (keys: string[]) => void,
): Promise<void> {
  for (let i = 0; i < keys.length; i += SEND_BATCH) {
    const slice = keys.slice(i, i + SEND_BATCH);
    try {
      await queue.sendBatch(slice.map((key) => ({ body: body(key) })));
    } catch {
      unsent(slice);
    }
  }
}

/**
 * The shell shared by the Durable Objects that fan units out on the practice queue. The machine
 * decides, synchronously inside a storage transaction; this shell performs the effects afterwards:
 * the unit traffic consumers call (claim, release, heartbeat, report, a 202 rollout's late
 * result), and one effects pass at a time that sends dispatched units, runs the object's own
 * follow-up and arms the alarm, which sweeps lapsed leases and comes back for anything unfinished.
 */
export abstract class UnitShell<M extends UnitMachine> extends DurableObject<Env> {
  private initError: unknown = null;
  protected machine!: M;
  /** Effects passes never overlap: calls during one only ask for one more pass. */
  protected readonly effects = new SerialPasses(() => this.flushOnce());

  /** Sets the object up before any call is let in; a failure is re-thrown per call so the input gate is not left broken. */
  protected boot(setUp: () => M): void {
    void this.ctx.blockConcurrencyWhile(async () => {
      try {
        this.machine = setUp();
      } catch (err) {
        this.initError = err;
      }
    });
  }

  protected ready(): void {
    if (this.initError) throw this.initError;
  }

  protected tx<T>(fn: () => T): T {
    this.ready();
    return this.ctx.storage.transactionSync(fn);
  }

  /** The queue message that carries one of this object's units. */
  protected abstract unitMessage(key: string): JobMessage;
  /** Who the object is, for its log lines. */
  protected abstract logContext(): Record<string, string>;
  /** What follows from the object's state after a pass: its ports, each call repeated by the alarm until recorded. */
  protected abstract followUp(): Promise<void>;

  /** Hands out a dispatched unit under a lease, so a duplicate delivery running alongside makes no second call. */
  async claim({ key }: { key: string }) {
    const holder = await newHolder();
    return this.tx(() => this.machine.claim(key, holder));
  }

  /** A failed attempt gives the lease back so that the queue's retry can claim the unit at once. */
  async release({ key, lease }: { key: string; lease: number }) {
    this.tx(() => this.machine.release(key, lease));
  }

  /** The holder of a unit's lease is still working; false when the lease is no longer its own. */
  async heartbeat({ key, lease }: { key: string; lease: number }) {
    return this.tx(() => this.machine.heartbeat(key, lease));
  }

  async report({ key, result }: { key: string; result: UnitResult }) {
    const changed = this.tx(() => this.machine.report(key, result));
    if (changed) await this.effects.request();
    return changed;
  }

  /** A webhook rollout's late result, from whoever presents the dispatch's secret (as its SHA-256). */
  async rolloutResult({
    key,
    dispatchId,
    secretHash,
    data,
  }: {
    key: string;
    dispatchId: string;
    secretHash: string | null;
    data: UnitData["rollout"];
  }) {
    const outcome = this.tx(() => this.machine.rolloutResult(key, dispatchId, secretHash, data));
    if (outcome === "accepted") await this.effects.request();
    return outcome;
  }

  override async alarm() {
    this.tx(() => this.machine.sweepOverdue());
    await this.effects.request();
  }

  private async flushOnce(): Promise<void> {
    const keys = this.tx(() => this.machine.takeDispatch());
    // Units that could not be sent go back to pending; the alarm armed below comes back soon for them.
    await sendUnits(
      this.env.PRACTICE,
      keys,
      (key) => this.unitMessage(key),
      (unsent) => this.tx(() => this.machine.unsend(unsent)),
    );
    try {
      await this.followUp();
    } catch (err) {
      // The follow-up is repeated by the alarm armed below; the object's own state is safe.
      createLogger(this.logContext(), variables(this.env).LOG_LEVEL).error("follow-up failed", { err: String(err) });
    } finally {
      const next = this.tx(() => this.machine.nextAlarm());
      if (next === null) await this.ctx.storage.deleteAlarm();
      else await this.ctx.storage.setAlarm(next);
    }
  }
}

/**
 * The retry classes of the unit traffic both shells serve (each object's contract.ts spreads it).
 * A heartbeat only renews the caller's own lease; the rest hand out or settle work, never repeated.
 */
export const UNIT_TRAFFIC_CONTRACT = {
  claim: { unrepeatable: true },
  release: { unrepeatable: true },
  heartbeat: { repeatable: true },
  report: { unrepeatable: true },
  rolloutResult: { unrepeatable: true },
} as const satisfies Contract<UnitShell<UnitMachine>>;
