import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import type { ResponseStore, StoredResponse } from '../store/types';

/**
 * Batches a response's stream events into the store: one write per flush interval, never one per
 * token, and writes stay in order because each waits for the one before.
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

  constructor(
    private readonly store: ResponseStore,
    private readonly responseId: string,
    private readonly flushMs: number,
    /** The response as it stands, written with each batch so polling readers see progress. */
    private readonly snapshot?: () => StoredResponse,
  ) {}

  add(event: ResponseStreamEvent): void {
    this.pending.push(event);
    this.timer ??= setTimeout(() => this.flush(), this.flushMs);
  }

  /** Writes what is pending and waits for every write so far; rejects if any write failed. */
  async close(): Promise<void> {
    this.flush();
    await this.chain;
    if (this.failure) throw this.failure;
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    const record = this.snapshot?.();
    this.chain = this.chain.then(async () => {
      try {
        await this.store.appendEvents(this.responseId, batch);
        if (record) await this.store.putResponse(record);
      } catch (err) {
        this.failure ??= err;
      }
    });
  }
}
