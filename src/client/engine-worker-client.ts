/**
 * The page's side of the engine worker: starts it, and mints MessageChannels into it, one for the
 * page's own calls and one per service-worker connection.
 */
import * as Comlink from 'comlink';
import type { EngineApi, PageToWorkerMessage } from '../worker/protocol';
import { type EngineWorkerOptions, engineWorkerName } from '../worker/worker-options';

/** The engine worker, as the page holds it. */
export interface EngineWorkerHandle {
  /** The page's own comlink proxy (loadModel, gpuStatus). */
  api: Comlink.Remote<EngineApi>;
  /** A new port into the worker, for the caller to hand to the service worker. */
  connect(): MessagePort;
  worker: Worker;
}

/**
 * Starts the module worker. Vite bundles it (and its lazy web-llm chunk) from this very URL pattern.
 *
 * @example
 * const engine = startEngineWorker();
 * const status = await engine.api.gpuStatus();
 */
export function startEngineWorker(options: EngineWorkerOptions = {}): EngineWorkerHandle {
  const worker = new Worker(new URL('../worker/engine-worker.ts', import.meta.url), {
    type: 'module',
    // The worker opens its store before any message could reach it, so its options ride in the name.
    name: engineWorkerName(options),
  });
  worker.addEventListener('error', (event) => {
    console.error('[intab] engine worker failed:', event.message || event);
  });
  const connect = (): MessagePort => {
    const { port1, port2 } = new MessageChannel();
    worker.postMessage({ type: 'connect' } satisfies PageToWorkerMessage, [port1]);
    return port2;
  };
  return { api: Comlink.wrap<EngineApi>(connect()), connect, worker };
}
