/**
 * The bench's own comlink API into its engine worker (bench/engine-worker.ts), separate from the
 * production {@link EngineApi}: the page reaches it on a port sent with `{type: 'bench-connect'}`.
 */
import type { JsonRead, SseRead } from './sse-reader';

/** The bench-only route: pre-generated SSE bytes through the same worker → SW → page path. */
export const FLOOR_PATH = '/v1/bench/floor';

/** How the floor route cuts its bytes: one chunk per SSE frame, or `SSE_COALESCE_LIMIT` slices. */
export type FloorChunking = 'event' | 'coalesced';

export interface BenchApi {
  /** Runs `POST /v1/responses` with `body` through the worker's own core and reads the SSE body there. */
  localStream(body: object): Promise<SseRead>;
  /** The same for a non-streamed request. */
  localJson(body: object): Promise<JsonRead>;
  /**
   * Produces `body`'s response once in the worker and keeps its bytes for {@link FLOOR_PATH} to
   * replay with no Responses work.
   */
  prepareFloor(body: object): Promise<{ bytes: number; eventChunks: number; coalescedChunks: number }>;
  /** Reads the prepared floor chunks inside the worker, with no transport: the floor's parsing cost. */
  localFloor(chunking: FloorChunking): Promise<SseRead>;
  /** `IDBDatabase.prototype.transaction` calls in this worker so far (every store read and write). */
  idbTransactions(): Promise<number>;
  /** Starts watching this worker's event loop for its longest synchronous block (bench/block-watch.ts). */
  startBlockWatch(label: string): Promise<void>;
  /** The longest block since {@link startBlockWatch}, in ms. */
  stopBlockWatch(): Promise<number>;
}
