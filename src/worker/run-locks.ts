import type { RunLocks } from '../core/index';

const PREFIX = 'intab:run:';

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
      void locks.request(`${PREFIX}${id}`, () => until.catch(() => {}));
    },
    async held() {
      const snapshot = await locks.query();
      return new Set(
        (snapshot.held ?? [])
          .map((l) => l.name ?? '')
          .filter((n) => n.startsWith(PREFIX))
          .map((n) => n.slice(PREFIX.length)),
      );
    },
  };
}
