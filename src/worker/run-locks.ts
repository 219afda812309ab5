import type { RunLocks } from '../core/index';

/** Run locks are named `intab:run:<response id>`. */
export const RUN_LOCK_PREFIX = 'intab:run:';

/**
 * Web Locks as the core's {@link RunLocks}: each running response holds a lock named after it, and
 * the browser releases a lock when its tab dies, so a lock nobody holds means a dead run. Where Web
 * Locks are missing, every unfinished run looks dead; recovery then only runs at start-up, before
 * this worker has started any run of its own.
 *
 * @example
 * createResponsesServer({ engine, store, runLocks: webRunLocks() });
 */
export function webRunLocks(): RunLocks | undefined {
  const locks = (globalThis.navigator as Navigator | undefined)?.locks;
  if (!locks) return undefined;
  return {
    hold(id, until) {
      void locks.request(`${RUN_LOCK_PREFIX}${id}`, () => until.catch(() => {}));
    },
    async held() {
      const snapshot = await locks.query();
      return new Set(
        (snapshot.held ?? [])
          .map((l) => l.name ?? '')
          .filter((n) => n.startsWith(RUN_LOCK_PREFIX))
          .map((n) => n.slice(RUN_LOCK_PREFIX.length)),
      );
    },
  };
}
