/**
 * A counting semaphore shared by the requests of one isolate: at most `limit` holders at a time,
 * waiters served in FIFO order. Pure logic, no Cloudflare imports.
 *
 * It is built for callers that can vanish. The Workers runtime cancels a request whose client went
 * away (or that it judged hung) and from then on runs none of its code: no `finally`, no timer, no
 * continuation. A semaphore that hands its permit straight to a waiter, or trusts every holder to
 * call release, leaks a permit to each such request, and once all are leaked every later caller
 * waits forever. A waiter woken by a promise another request resolves runs on in that request's
 * I/O context, with none of its own pending, and the runtime cancels it as hung. So here:
 * - a waiter is woken only by its own timer (its own pending I/O): it polls, and takes a permit
 *   itself when it is among the first `free` in line; a release hands nothing over, wakes no one;
 * - waiters and holders prove they are alive on their own timers; one whose timer has stopped (its
 *   request is gone) is dropped, and a dead holder's permit returns to the pool;
 * - a wait is bounded: `timeoutMs` ends it with SemaphoreTimeoutError, `signal` with its reason.
 */

/** The timers of the caller's own request: a dead request's timers stop firing. */
export interface SemaphoreClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
}

const systemClock: SemaphoreClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
};

export interface AcquireOptions {
  /** Ends the wait (not a held permit) with the signal's reason. */
  signal?: AbortSignal;
  /** Longest wait for a permit; then SemaphoreTimeoutError. Default: the semaphore's `maxWaitMs`. */
  timeoutMs?: number;
  clock?: SemaphoreClock;
}

export interface SemaphoreOptions {
  /** How often a waiter looks for a free permit and proves it is alive. */
  tickMs?: number;
  /** How often a holder proves it is alive. A waiter unseen for 10 ticks, a holder for 10 heartbeats, is taken for dead. */
  heartbeatMs?: number;
  /** The wait bound for callers that give none. */
  maxWaitMs?: number;
}

/** The wait for a permit outlasted its bound: the resource is saturated, try again later. */
export class SemaphoreTimeoutError extends Error {
  override name = "SemaphoreTimeoutError";
  constructor(
    readonly waitedMs: number,
    readonly limit: number,
  ) {
    super(`all ${limit} permits stayed busy for ${waitedMs} ms`);
  }
}

interface Waiter {
  seq: number;
  seen: number;
}

interface Holder {
  seen: number;
}

export class Semaphore {
  private readonly holders = new Set<Holder>();
  /** Ordered by `seq`, the order of arrival. */
  private readonly queue: Waiter[] = [];
  private seq = 0;
  private readonly tickMs: number;
  private readonly heartbeatMs: number;
  private readonly maxWaitMs: number;

  constructor(
    readonly limit: number,
    options: SemaphoreOptions = {},
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`Semaphore limit must be a positive integer, got ${limit}`);
    this.tickMs = options.tickMs ?? 50;
    this.heartbeatMs = options.heartbeatMs ?? 1_000;
    this.maxWaitMs = options.maxWaitMs ?? 30_000;
  }

  /** Holders right now (dead ones included until someone notices). */
  get inUse(): number {
    return this.holders.size;
  }

  /** Callers waiting for a permit. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Resolves with a release function once a permit is free; calling release more than once is harmless. */
  async acquire(options: AcquireOptions = {}): Promise<() => void> {
    const clock = options.clock ?? systemClock;
    const { signal } = options;
    signal?.throwIfAborted();
    const started = clock.now();
    const deadline = started + (options.timeoutMs ?? this.maxWaitMs);
    const me: Waiter = { seq: this.seq++, seen: started };
    this.queue.push(me);
    try {
      for (;;) {
        signal?.throwIfAborted();
        const now = clock.now();
        me.seen = now;
        // Dropped as dead while this request was merely slow: back to its place in line.
        if (!this.queue.includes(me)) this.queue.splice(this.queue.findIndex((w) => w.seq > me.seq) >>> 0, 0, me);
        this.reap(now);
        if (this.queue.indexOf(me) < this.limit - this.holders.size) return this.hold(clock);
        if (now >= deadline) throw new SemaphoreTimeoutError(now - started, this.limit);
        let timer: unknown;
        let woken!: () => void;
        await new Promise<void>((resolve) => {
          woken = () => resolve();
          timer = clock.setTimeout(woken, Math.max(1, Math.min(this.tickMs, deadline - now)));
          signal?.addEventListener("abort", woken, { once: true });
        });
        clock.clearTimeout(timer);
        signal?.removeEventListener("abort", woken);
      }
    } finally {
      this.leave(me);
    }
  }

  /** Runs `fn` while holding a permit and releases it however `fn` ends. */
  async run<T>(fn: () => Promise<T>, options?: AcquireOptions): Promise<T> {
    const release = await this.acquire(options);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  private hold(clock: SemaphoreClock): () => void {
    const holder: Holder = { seen: clock.now() };
    this.holders.add(holder);
    let timer: unknown;
    const beat = () => {
      holder.seen = clock.now();
      timer = clock.setTimeout(beat, this.heartbeatMs);
    };
    timer = clock.setTimeout(beat, this.heartbeatMs);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      clock.clearTimeout(timer);
      this.holders.delete(holder);
    };
  }

  /** Drops waiters and holders whose requests have stopped running. */
  private reap(now: number): void {
    for (const h of this.holders) if (now - h.seen > this.heartbeatMs * 10) this.holders.delete(h);
    for (let i = this.queue.length - 1; i >= 0; i--) if (now - this.queue[i]!.seen > this.tickMs * 10) this.queue.splice(i, 1);
  }

  private leave(me: Waiter): void {
    const at = this.queue.indexOf(me);
    if (at >= 0) this.queue.splice(at, 1);
  }
}
