import type {
  Response as ApiResponse,
  ResponseItem,
  ResponseStreamEvent,
} from 'openai/resources/responses/responses';

/** One stored response: the wire object plus the items it was generated from. */
export interface StoredResponse {
  response: ApiResponse;
  /**
   * Every item the model saw for this response, oldest first, with ids: the history carried in by
   * `previous_response_id` followed by this request's own input. `GET /input_items` lists these.
   */
  inputItems: ResponseItem[];
  /** Epoch ms after which the entry is expired; null = never. */
  expiresAt?: number | null;
}

/**
 * Durable state of the Responses server. Implementations: MemoryStore (tests, store:false sessions)
 * and IdbStore (IndexedDB through idb). Every method rejects with an ApiError on storage failure
 * (e.g. QuotaExceededError → 507-ish OpenAI error), never with a raw DOMException.
 *
 * @example
 * await store.putResponse(record, { durable: true });
 * const again = await store.getResponse(record.response.id);
 */
export interface ResponseStore {
  /** Inserts or replaces a response record. `durable` asks for strict durability (final writes). */
  putResponse(record: StoredResponse, opts?: { durable?: boolean }): Promise<void>;
  getResponse(id: string): Promise<StoredResponse | undefined>;
  /** Deletes a response and its event log. Resolves false when there was nothing to delete. */
  deleteResponse(id: string): Promise<boolean>;
  /** Appends a batch of stream events (one transaction per call, not per event). */
  appendEvents(responseId: string, events: ResponseStreamEvent[]): Promise<void>;
  /** Events with `sequence_number > startingAfter` (all when undefined), in order. */
  readEvents(responseId: string, startingAfter?: number): Promise<ResponseStreamEvent[]>;
  /**
   * Deletes expired entries, then trims to the configured maximum (oldest `created_at` first).
   * Optional: stores without limits omit it. Callers run it opportunistically, off the request path.
   */
  sweep?(): Promise<SweepResult>;
  /** Releases the underlying connection. */
  close(): void;
}

/** What one {@link ResponseStore.sweep} removed. */
export interface SweepResult {
  /** Responses removed because their `expiresAt` had passed. */
  expired: number;
  /** Responses removed to get back under the maximum entry count. */
  trimmed: number;
}

/**
 * Retention limits shared by every store implementation.
 *
 * @example
 * const limits: StoreLimits = { ttlMs: 30 * 24 * 3600_000, maxResponses: 1000 };
 */
export interface StoreLimits {
  /** Lifetime of a record written without an explicit `expiresAt`; null/undefined = never expires. */
  ttlMs?: number | null;
  /** Most responses kept after a sweep; null/undefined = unbounded. */
  maxResponses?: number | null;
  /** Clock in epoch ms, injectable so expiry is testable without fake timers. Defaults to Date.now. */
  now?: () => number;
}
