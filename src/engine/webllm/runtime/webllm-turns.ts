/**
 * The wait queue in front of the GPU: one turn at a time through the gate, and a bound on how many
 * requests may wait for theirs.
 */
import { rateLimited } from '../../../common/api-error';
import { Gate } from '../webllm-gate';

const DEFAULT_MAX_QUEUE = 16;

/**
 * Turns at the GPU, counting who waits for one.
 *
 * @example
 * const turns = new Turns();
 * const release = await turns.queued(turns.gate.acquire(signal));
 */
export class Turns {
  readonly gate = new Gate();
  /** Requests waiting for the GPU: for their turn at the gate, or for their model's load. */
  private waiting = 0;

  constructor(private readonly maxQueue?: number) {}

  /** Counts the caller as waiting for the GPU until `wait` settles. */
  async queued<T>(wait: Promise<T>): Promise<T> {
    this.waiting++;
    try {
      return await wait;
    } finally {
      this.waiting--;
    }
  }

  /**
   * OpenAI's 429 when `maxQueue` requests already wait: one GPU serves one request at a time, and
   * an unbounded queue would hold every later request for minutes, past the service worker's bounds.
   */
  refuseWhenFull(modelId: string): void {
    const max = this.maxQueue ?? DEFAULT_MAX_QUEUE;
    if (this.waiting < max) return;
    throw rateLimited(
      `Rate limit reached for ${modelId} on queued requests: Limit ${max}, Used ${this.waiting}, Requested 1. Please try again in ${Math.ceil(this.gate.averageTurnMs / 1000)}s.`,
      this.gate.averageTurnMs,
    );
  }
}
