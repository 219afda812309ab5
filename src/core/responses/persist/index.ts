/**
 * The persist stage of a create, and what reads it back: the final record and the conversation
 * append (`final-save.ts`), a background run's batched event log (`event-log.ts`), the events of a
 * stored response rebuilt for a replay (`replay-events.ts`), and the recovery of runs whose tab died
 * (`recovery.ts`).
 *
 * @example
 * import { saveFinal, EventLog } from './persist';
 */
export { EventLog } from './event-log';
export * from './final-save';
export { failInterrupted, type RunLocks } from './recovery';
export { rebuildEvents, terminalEvent } from './replay-events';
