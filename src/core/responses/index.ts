/**
 * The Responses API surface (`/v1/responses…`): create (JSON, SSE, background), retrieve and replay,
 * delete, cancel, input items, input-token counts and compaction, with the run state machine that
 * owns the event order.
 *
 * @example
 * import { createResponse, LiveRuns } from './responses';
 */
export { compactResponse } from './compaction';
export { type CreateDeps, createResponse } from './create-response';
export { LiveRuns } from './live-runs';
export { failInterrupted, type RunLocks } from './recovery';
export { normalizeInput } from './request/input-items';
export type { ResponseObject } from './response-object';
export {
  cancelResponse,
  countInputTokens,
  deleteResponse,
  listInputItems,
  retrieveResponse,
} from './response-routes';
