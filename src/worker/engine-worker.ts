/**
 * The engine worker entry: a module Web Worker, one per origin, started by the tab that won the
 * leader election (DESIGN §5). It hosts the Responses core with the real engines and the IndexedDB
 * store, and exposes {@link EngineApi} over comlink on every MessagePort it is handed: the page's own
 * port, and one per leader → service-worker connection.
 * A service worker is stopped after ~30 s idle and its ports die silently, so new ports arrive at any
 * time and old ones are simply abandoned.
 */
import * as Comlink from 'comlink';
import { createResponsesServer } from '../core/index';
import { CompositeEngine, ScriptedEngine, WebLLMEngine } from '../engine/index';
import { openIdbStore } from '../store/index';
import { createEngineApi } from './engine-api';
import { probeGpu } from './gpu-status';
import { isMessage, type PageToWorkerMessage } from './protocol';
import { webRunLocks } from './run-locks';
import { workerOptions } from './worker-options';

// Self-hosted models and the weight cache come from the page (startIntab({ webllm })).
const engine = new CompositeEngine([new ScriptedEngine(), new WebLLMEngine(workerOptions(self.name).webllm)]);
// web-llm's prebuilt model list comes with its ~6 MB module. Start importing it now, while the store
// opens: the core holds `GET /v1/models` (and so the page's `ready`) until it is listed, bounded by
// CompositeEngine; if it fails, only `scripted` (and self-hosted records) are served.
void engine.init().then(() => {
  const missing = engine.missingReason();
  if (missing) console.error(`[intab] ${missing}`);
});

let server: Promise<{ fetch(req: Request): Promise<Response> }> | null = null;

/** The page's store limits, from the worker's name (see worker-options.ts); undefined ones default. */
function storeLimits() {
  const { store } = workerOptions(self.name);
  return Object.fromEntries(Object.entries(store).filter(([, v]) => v !== undefined));
}

/** Expired and excess entries go in the background, in small transactions, never blocking requests. */
function sweepPeriodically(store: { sweep(): Promise<unknown> }): void {
  const sweep = () => void store.sweep().catch(() => {});
  sweep();
  setInterval(sweep, SWEEP_INTERVAL_MS);
}

const SWEEP_INTERVAL_MS = 10 * 60_000;

/** Opens the store once; a failure is not cached, so the next request retries (e.g. after a quota fix). */
function getServer(): Promise<{ fetch(req: Request): Promise<Response> }> {
  server ??= openIdbStore(storeLimits()).then(
    (store) => {
      // `fetchFile` lets input_file.file_url read blob: and same-origin files (fetch is bound: a
      // worker's fetch called detached from globalThis throws "Illegal invocation").
      const created = createResponsesServer({
        engine,
        store,
        runLocks: webRunLocks(),
        fetchFile: fetch.bind(globalThis),
        ...workerOptions(self.name).server,
      });
      // Responses left in progress by a tab that died are marked failed; live ones (locked) are kept.
      void created.recover().catch(() => {});
      sweepPeriodically(store);
      return created;
    },
    (err: unknown) => {
      server = null;
      throw err;
    },
  );
  return server;
}

// Only the leading tab starts this worker, often right after the previous leader's tab closed: open
// the store and run recovery now, so the dead leader's responses turn `failed` without waiting for a
// first request.
void getServer().catch(() => {});

const api = createEngineApi({
  server: getServer,
  load: (modelId, onProgress) => engine.load(modelId, onProgress),
  gpuStatus: () => probeGpu(),
});

self.addEventListener('message', (event: MessageEvent) => {
  const port = event.ports[0];
  if (!isMessage<PageToWorkerMessage>(event.data, 'connect') || !port) return;
  Comlink.expose(api, port);
  // Chromium ≥ 123 fires `close` on an entangled port whose peer went away; elsewhere the port just
  // lingers until GC. Closing releases comlink's listener either way.
  port.addEventListener('close', () => port.close());
});
