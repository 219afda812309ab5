import type { ResponseOutputItem } from 'openai/resources/responses/responses';
import type { ResponseStore } from '../../../store/types';
import type { ResponseObject } from '../request/response-object';
import { ResponseRun } from '../run/response-run';
import { terminalEvent } from './replay-events';

/**
 * Tells which responses have a live runner anywhere in the origin. In the browser this is Web Locks
 * (a lock per running response, released by the browser when its tab dies); tests inject their own.
 *
 * @example
 * const locks: RunLocks = { hold: (id, until) => navigator.locks.request(`intab:run:${id}`, () => until), held: async () => new Set() };
 */
export interface RunLocks {
  /** Holds `id`'s lock until `until` settles. */
  hold(id: string, until: Promise<unknown>): void;
  /** Ids whose lock is held right now, by any tab. */
  held(): Promise<Set<string>>;
}

/**
 * Why a response left `in_progress` ended `failed`: its tab closed, or the tab restarted an engine worker
 * that stopped answering (both drop the run's lock with the worker).
 */
export const RUN_LOST_MESSAGE =
  'The engine that was running this response stopped before it finished: its tab closed, or its worker stopped answering and was restarted.';

/**
 * Marks `failed` every stored response still `queued`/`in_progress` whose runner is gone (its tab
 * closed or crashed mid-run), so none stays in progress forever: its open items end `incomplete`
 * (as a live failure leaves them), and its event log, if it has one, ends with `response.failed`.
 * Resolves with how many it marked.
 *
 * @example
 * await failInterrupted(store, locks);
 */
export async function failInterrupted(store: ResponseStore, locks: RunLocks | undefined): Promise<number> {
  const held = locks ? await locks.held() : new Set<string>();
  let marked = 0;
  for (const record of await store.listUnfinished()) {
    if (held.has(record.response.id)) continue;
    const response = {
      ...record.response,
      status: 'failed' as const,
      output: record.response.output.map(endItem),
      error: {
        code: 'server_error' as const,
        message: RUN_LOST_MESSAGE,
      },
    };
    await store.putResponse({ ...record, response }, { durable: true });
    await endLog(store, response as unknown as ResponseObject);
    marked++;
  }
  return marked;
}

/** An item the dead run left open ends `incomplete`. */
function endItem(item: ResponseOutputItem): ResponseOutputItem {
  const open = 'status' in item && item.status === 'in_progress';
  return open ? ({ ...item, status: 'incomplete' } as ResponseOutputItem) : item;
}

/** Appends the terminal event to `response`'s event log, when it has a log that lacks one. */
async function endLog(store: ResponseStore, response: ResponseObject): Promise<void> {
  const last = (await store.readEvents(response.id)).at(-1);
  if (!last || ResponseRun.isTerminal(last)) return;
  const end = terminalEvent(response, last.sequence_number + 1);
  if (end) await store.appendEvents(response.id, [end]);
}
