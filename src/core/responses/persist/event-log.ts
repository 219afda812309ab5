import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import type { ResponseStore, StoredResponse } from '../../../store/types';

/**
 * Most events in one write. A model faster than the flush interval (the scripted one emits thousands
 * of tokens per millisecond) would otherwise put its whole output into one transaction, holding every
 * pending request in memory and the worker busy until it commits.
 */
export const EVENT_LOG_MAX_BATCH = 1000;

/**
 * Batches a response's stream events into the store: one write per flush interval (or per
 * {@link EVENT_LOG_MAX_BATCH} events, whichever comes first), never one per token, and writes stay in
 * order because each waits for the one before.
 *
 * @example
 * const log = new EventLog(store, id, 100);
 * log.add(event); // …many times
 * await log.close();
 */
export class EventLog {
  private pending: ResponseStreamEvent[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown = null;
  /** Events were written since the last snapshot (by a full batch). */
  private unsnapshotted = false;
  /** Set once the response is deleted: nothing more is written. */
  private discarded = false;

  constructor(
    private readonly store: ResponseStore,
    private readonly responseId: string,
    private readonly flushMs: number,
    /** The response as it stands, written with each timed batch so polling readers see progress. */
    private snapshot?: () => StoredResponse,
  ) {}

  add(event: ResponseStreamEvent): void {
    if (this.discarded) return;
    this.pending.push(event);
    // A full batch goes now, without a snapshot: the timer still writes one per interval.
    if (this.pending.length >= EVENT_LOG_MAX_BATCH) this.write(false);
    this.timer ??= setTimeout(() => this.flush(), this.flushMs);
  }

  /** Drops what is pending and writes nothing more (the response was deleted); `close()` still waits. */
  discard(): void {
    this.discarded = true;
    this.pending = [];
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /**
   * Writes what is pending and waits for every write so far; rejects if any write failed. The last
   * snapshot goes with this batch: events added later (an `error` after a failed final write) are
   * written by another `close()`, without one, so they never overwrite the final record.
   */
  async close(): Promise<void> {
    this.flush();
    this.snapshot = undefined;
    await this.chain;
    if (this.failure) throw this.failure;
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.write(true);
  }

  private write(withSnapshot: boolean): void {
    if (this.discarded) return;
    if (this.pending.length === 0 && !(withSnapshot && this.snapshot && this.unsnapshotted)) return;
    const batch = this.pending;
    this.pending = [];
    const record = withSnapshot ? this.snapshot?.() : undefined;
    this.unsnapshotted = !withSnapshot;
    this.chain = this.chain.then(async () => {
      if (this.discarded) return;
      try {
        if (batch.length > 0) await this.store.appendEvents(this.responseId, batch);
        if (record) await this.store.putResponse(record);
      } catch (err) {
        this.failure ??= err;
      }
    });
  }
}
