/**
 * The bound on requests waiting for an engine. web-llm's GPU and a llama.cpp instance each serve one
 * job at a time, so without a bound a burst of requests would queue for minutes, past every bound of
 * the service worker: past `max` waiters a new request is OpenAI's 429 `rate_limit_exceeded`.
 */
import { rateLimited } from '../common/api-error';

/** Requests that may wait for an engine at once, by default. */
export const DEFAULT_MAX_QUEUE = 16;

/**
 * Counts the callers waiting for their turn (or for their model's load), and refuses one more past
 * the cap.
 *
 * @example
 * const queue = new WaitQueue(16, 'llama.cpp runs one request at a time');
 * queue.refuseWhenFull('tiny', gate.averageTurnMs);
 * const release = await queue.queued(gate.acquire(signal));
 */
export class WaitQueue {
  /** Callers waiting now. */
  waiting = 0;

  readonly max: number;

  /**
   * `max` below 1 counts as 1: a queue that takes no one would refuse every request. `why`, when
   * given, says in the 429's message why requests wait (the engine's one-at-a-time).
   */
  constructor(
    max: number = DEFAULT_MAX_QUEUE,
    private readonly why = '',
  ) {
    this.max = Math.max(1, Math.floor(max));
  }

  /** Counts the caller as waiting until `wait` settles. */
  async queued<T>(wait: Promise<T>): Promise<T> {
    this.waiting++;
    try {
      return await wait;
    } finally {
      this.waiting--;
    }
  }

  /**
   * Throws the 429 when `max` callers already wait; `turnMs` (how long a turn takes, on average)
   * becomes its `retry-after`.
   */
  refuseWhenFull(modelId: string, turnMs: number): void {
    if (this.waiting < this.max) return;
    throw rateLimited(
      `Rate limit reached for ${modelId} on queued requests: Limit ${this.max}, Used ${this.waiting}, Requested 1. ${this.why ? `${this.why}; please` : 'Please'} try again in ${Math.max(1, Math.ceil(turnMs / 1000))}s.`,
      turnMs,
    );
  }
}
