/**
 * The wait queue in front of the GPU: one turn at a time through the gate, and a bound on how many
 * requests may wait for theirs (the engines' shared {@link WaitQueue}).
 */
import { WaitQueue } from '../../wait-queue';
import { Gate } from '../webllm-gate';

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
  private readonly waiting: WaitQueue;

  constructor(maxQueue?: number) {
    this.waiting = new WaitQueue(maxQueue);
  }

  /** Counts the caller as waiting for the GPU until `wait` settles. */
  queued<T>(wait: Promise<T>): Promise<T> {
    return this.waiting.queued(wait);
  }

  /**
   * OpenAI's 429 when `maxQueue` requests already wait: one GPU serves one request at a time, and
   * an unbounded queue would hold every later request for minutes, past the service worker's bounds.
   */
  refuseWhenFull(modelId: string): void {
    this.waiting.refuseWhenFull(modelId, this.gate.averageTurnMs);
  }
}
