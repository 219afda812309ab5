/**
 * The Responses API surface (`/v1/responses…`): create (JSON, SSE, background), retrieve and replay,
 * delete, cancel, input items, input-token counts and compaction, with the run state machine that
 * owns the event order.
 *
 * A create walks forward through three stage folders, each handing the next one value (drawn in
 * docs/DESIGN.md): `request/` parses and prepares (`prepare-create.ts` → `PreparedCreate`);
 * `create-response.ts` picks the delivery (SSE, JSON or background); `run/` drives engine passes and
 * hosted-tool turns into a `ResponseRun` (`run-loop.ts` → `RunOutcome`); `persist/` writes what the
 * run leaves (`final-save.ts`: the conversation append, the final record; `event-log.ts`).
 * `execute-run.ts` hands the run's result to persistence: no stage imports a later one.
 *
 * @example
 * import { createResponse, LiveRuns } from './responses';
 */
export { compactResponse } from './compaction';
export { type CreateDeps, createResponse } from './create-response';
export { failInterrupted, type RunLocks } from './persist/recovery';
export { normalizeInput } from './request/input-items';
export type { ResponseObject } from './request/response-object';
export {
  cancelResponse,
  countInputTokens,
  deleteResponse,
  listInputItems,
  retrieveResponse,
} from './response-routes';
export { LiveRuns } from './run/live-runs';
