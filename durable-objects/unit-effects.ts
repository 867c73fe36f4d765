/**
 * Effects shared by the Durable Objects that fan units out on the practice queue: practice runs
 * and evaluations.
 */

/** Queue sendBatch takes at most 100 messages. */
const SEND_BATCH = 100;

/**
 * Runs an effects pass so that passes never overlap: a request that arrives while one is under way
 * only asks for one more pass after it, and waits for that.
 */
export class SerialPasses {
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
export async function sendUnits<B>(queue: Queue<B>, keys: readonly string[], body: (key: string) => B, unsent: (keys: string[]) => void): Promise<void> {
  for (let i = 0; i < keys.length; i += SEND_BATCH) {
    const slice = keys.slice(i, i + SEND_BATCH);
    try {
      await queue.sendBatch(slice.map((key) => ({ body: body(key) })));
    } catch {
      unsent(slice);
    }
  }
}
