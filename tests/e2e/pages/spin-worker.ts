/**
 * The engine worker exactly as apps run it, plus one test-only hook, in this test build only (the
 * production worker has no such path): a message `{ ms }` on the `intab-test:spin` BroadcastChannel
 * makes the worker spin synchronously for `ms` (Infinity: for ever), as a request that never yields
 * would. A worker started after the message never hears it, so a replacement runs normally.
 */
import * as engineWorker from '../../../src/worker/engine-worker';

// package.json lists src/ as free of side effects, so a bare import would be dropped from the build:
// the engine worker is all side effects (it listens for ports). Referenced, it is kept whole.
Reflect.set(globalThis, '__intabEngineWorker', engineWorker);

/** The channel the e2e pages post `{ ms }` on. */
export const SPIN_CHANNEL = 'intab-test:spin';

new BroadcastChannel(SPIN_CHANNEL).onmessage = (event: MessageEvent<{ ms: number }>) => {
  const end = performance.now() + event.data.ms;
  while (performance.now() < end) {
    // Busy for real: no await, no message, no ping answered.
  }
};
