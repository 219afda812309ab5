/**
 * The page's side of the engine worker: starts it, and mints MessageChannels into it, one for the
 * page's own calls and one per service-worker connection.
 */
import * as Comlink from 'comlink';
import type { RemoteServerSpec } from '../engine/remote/remote-options';
import type { EngineApi, PageToWorkerMessage } from '../worker/protocol';
import { type EngineWorkerOptions, engineWorkerName } from '../worker/worker-options';
import { describeWorkerFailure } from './worker-failure';

/** The engine worker, as the page holds it. */
export interface EngineWorkerHandle {
  /** The page's own comlink proxy (loadModel, gpuStatus). */
  api: Comlink.Remote<EngineApi>;
  /** A new port into the worker, for the caller to hand to the service worker. */
  connect(): MessagePort;
  worker: Worker;
  /** The script the worker was started from. */
  url: string;
}

/** Where the worker's script is, and who hears about its failures. */
export interface EngineWorkerStart {
  /** The script's URL; by default the one the app's bundler made of `new URL('./engine-worker.js', import.meta.url)`. */
  url?: string | URL;
  /** Each failure, as one error naming the script and the cause (a bare `Event` says neither). */
  onError?: (err: Error) => void;
  /**
   * Remote servers, posted to the worker before any port (they hold keys, which must not ride in
   * the worker's name); `options.remote` tells the worker to wait for them.
   */
  remote?: RemoteServerSpec[];
}

/**
 * Starts the module worker. Vite and webpack bundle it (and its lazy web-llm chunk) from the
 * `new Worker(new URL(…, import.meta.url))` below, which they must see verbatim; other bundlers
 * build `intab/engine-worker` as an entry of its own and pass its URL.
 *
 * @example
 * const engine = startEngineWorker({}, { onError: (err) => console.error(err.message) });
 * const status = await engine.api.gpuStatus();
 */
export function startEngineWorker(
  options: EngineWorkerOptions = {},
  start: EngineWorkerStart = {},
): EngineWorkerHandle {
  // The worker opens its store before any message could reach it, so its options ride in the name.
  const name = engineWorkerName(options);
  const { worker, url } = start.url
    ? { worker: new Worker(start.url, { type: 'module', name }), url: new URL(start.url, location.href).href }
    : recordScriptUrl(() => bundledWorker(name));
  worker.addEventListener('error', (event) => {
    const report = start.onError ?? ((err: Error) => console.error(`[intab] ${err.message}`));
    void describeWorkerFailure(url, event).then(report);
  });
  if (start.remote?.length)
    worker.postMessage({ type: 'remote', servers: start.remote } satisfies PageToWorkerMessage);
  const connect = (): MessagePort => {
    const { port1, port2 } = new MessageChannel();
    worker.postMessage({ type: 'connect' } satisfies PageToWorkerMessage, [port1]);
    return port2;
  };
  return { api: Comlink.wrap<EngineApi>(connect()), connect, worker, url };
}

/**
 * The engine worker's script URL, without starting it: `url` made absolute, else the bundler's name
 * for its own build of the worker (hashed: it changes with the worker's code and its lazy chunks'
 * names). Names this tab's build in the leader election (build-takeover.ts).
 *
 * @example
 * engineWorkerUrl(); // 'https://app.test/assets/engine-worker-Bx1.js'
 */
export function engineWorkerUrl(url?: string | URL): string {
  if (url) return new URL(url, location.href).href;
  const Native = globalThis.Worker;
  let seen = '';
  const probe = new Error('intab: engine worker URL probe');
  // A function, not an arrow: the bundled code calls it with `new`.
  globalThis.Worker = function (this: unknown, script: string | URL): Worker {
    seen = new URL(script, location.href).href;
    throw probe;
  } as unknown as typeof Worker;
  try {
    bundledWorker('');
  } catch (err) {
    if (err !== probe) throw err;
  } finally {
    globalThis.Worker = Native;
  }
  return seen;
}

/**
 * The engine worker the app's bundler built: Vite and webpack rewrite this `new Worker(new URL(…))`,
 * which they must see verbatim, into their build's script. (A `new URL(…)` written anywhere else
 * would be taken by bundlers for an asset to copy.)
 */
function bundledWorker(name: string): Worker {
  return new Worker(new URL('../worker/engine-worker.ts', import.meta.url), { type: 'module', name });
}

/**
 * Runs `create` and returns the worker with the URL it was created from. That URL is the bundler's
 * rewrite of the `new URL(…)` inside `create`, and a failed script load never reports it, so the
 * `Worker` constructor is watched for this one synchronous call.
 */
function recordScriptUrl(create: () => Worker): { worker: Worker; url: string } {
  const Native = globalThis.Worker;
  let url = '';
  const Watching = function (this: unknown, script: string | URL, opts?: WorkerOptions): Worker {
    url = new URL(script, location.href).href;
    return new Native(script, opts);
  } as unknown as typeof Worker;
  globalThis.Worker = Watching;
  try {
    return { worker: create(), url };
  } finally {
    globalThis.Worker = Native;
  }
}
