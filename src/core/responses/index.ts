/**
 * The Responses API surface (`/v1/responses…`): create (JSON, SSE, background), retrieve and replay,
 * delete, cancel, input items, input-token counts and compaction, with the run state machine that
 * owns the event order.
 *
 * A create request reads as it runs, each stage a module that hands the next a value:
 * parse and prepare (`request/prepare-create.ts` → `PreparedCreate`), pick the delivery
 * (`create-response.ts`: SSE, JSON or background), run (`run-loop.ts`: engine passes and hosted tool
 * calls, through `loop-state.ts`, into a `ResponseRun` → `RunOutcome`), persist (`execute-run.ts`:
 * the conversation append, the terminal event, the final write).
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
