import type { PythonRunner } from '../core/hosted/python-backend';
import { lazyModule } from '../core/http/lazy-module';

/**
 * The Python sandbox host (`code_interpreter`, `/v1/containers`) with its code loaded by the first
 * call or prewarm: a page that never runs Python does not download it (issue 36). A failed load is a
 * 503 for the call that needed it, and the next call tries again.
 *
 * @example
 * python: lazyPythonRunner(async () => new (await import('../sandbox')).SandboxHost(opts)),
 */
export function lazyPythonRunner(create: () => Promise<PythonRunner>): PythonRunner {
  let ready: PythonRunner | null = null;
  const load = lazyModule('Python sandbox', async () => {
    ready = await create();
    return ready;
  });
  return {
    run: async (containerId, code, files, signal) => (await load()).run(containerId, code, files, signal),
    // Nothing runs before the code is here; a stop that comes while it loads applies once it has.
    stop: (containerId) => {
      if (ready) ready.stop(containerId);
      else
        void load().then(
          (r) => r.stop(containerId),
          () => {},
        );
    },
    prewarm: (containerId) => {
      void load().then(
        (r) => r.prewarm?.(containerId),
        () => {},
      );
    },
  };
}
