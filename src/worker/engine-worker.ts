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
import {
  type ChoiceSpec,
  CompositeEngine,
  EngineChoice,
  LazyEngine,
  lazyWebLLMEngine,
  lazyWllamaEngine,
  type RemoteEngine,
  type RemoteServerSpec,
  ScriptedEngine,
} from '../engine/index';
import { openIdbStore } from '../store/index';
import { createEngineApi } from './engine-api';
import { probeGpu } from './gpu-status';
import { lazyPythonRunner } from './lazy-python';
import { isMessage, type PageToWorkerMessage } from './protocol';
import { webRunLocks } from './run-locks';
import { canTransferStreams } from './wire';
import { workerOptions } from './worker-options';

/**
 * llama.cpp's WebAssembly, served from the app's own origin: the bundler emits it as an asset (and
 * the service worker precaches it), so wllama never reaches for its CDN default.
 */
const WLLAMA_WASM_URL = new URL('@wllama/wllama/esm/wasm/wllama.wasm', import.meta.url).href;
/**
 * intab's llama.cpp builds with ggml's wasm SIMD kernels and their emscripten glue (issues 34, 42;
 * made by scripts/build-wasm.mjs): CPU models that fit wasm32 run the threaded one where this worker
 * is cross-origin isolated with SharedArrayBuffer, else the single-threaded one (no pthreads, no
 * shared memory); the rest, and whatever neither starts, run the stock build above (wasm-build.ts).
 */
const WLLAMA_SIMD_WASM = {
  wasmUrl: new URL('../../wasm/simd/wllama.wasm', import.meta.url).href,
  jsUrl: new URL('../../wasm/simd/wllama.js', import.meta.url).href,
};
const WLLAMA_SIMD_ST_WASM = {
  wasmUrl: new URL('../../wasm/simd-st/wllama.wasm', import.meta.url).href,
  jsUrl: new URL('../../wasm/simd-st/wllama.js', import.meta.url).href,
};

// Self-hosted models, GGUF models and the weight caches come from the page (startIntab({ webllm,
// wllama })). Each real engine is its own chunk, fetched when one of its models is first used: web-llm
// is listed from its prebuilt catalog without its 6 MB module, so a page that only uses `scripted`
// downloads neither engine.
const options = workerOptions(self.name);
const wllama = lazyWllamaEngine({
  ...options.wllama,
  wasmUrl: WLLAMA_WASM_URL,
  simdWasm: WLLAMA_SIMD_WASM,
  simdSingleThreadWasm: WLLAMA_SIMD_ST_WASM,
});
const webllm = lazyWebLLMEngine(options.webllm);
// Remote servers (startIntab({ remote })) come in a message posted before any port: their keys must
// not ride in the worker's name. Their models are listed after every local engine's, so an id that
// a local engine also serves runs locally. A flag in the name says whether to wait for them.
let remoteServers: (servers: RemoteServerSpec[]) => void = () => {};
const pendingServers: Promise<RemoteServerSpec[]> | undefined = options.remote
  ? new Promise((resolve) => {
      remoteServers = resolve;
    })
  : undefined;
// The remote engine's code is a chunk of its own too (issue 36): built at start-up when the page has
// servers, else when `addRemote` first adds one. Until then it lists nothing, as it would with none.
const remote = new LazyEngine<RemoteEngine>({
  name: 'the remote engine',
  eager: pendingServers !== undefined,
  listing: () => [],
  create: async () => new (await import('../engine/remote/remote-engine')).RemoteEngine({ pendingServers }),
});
// GGUF models that name their web-llm build are served by whichever engine suits this machine, and
// so are remote models that name one ("local where possible, else remote").
const choiceSpecs: ChoiceSpec[] = (options.wllama?.models ?? []).flatMap((m) =>
  m.webllm ? [{ id: m.id, webllm: m.webllm, engine: m.engine }] : [],
);
const choice = new EngineChoice({ specs: choiceSpecs, webllm, wllama, remote });

/** Adds a remote server's models that name a web-llm build to the engine choice. */
function chooseLocally(spec: RemoteServerSpec): void {
  for (const m of spec.models ?? []) {
    if (typeof m === 'object' && typeof m?.webllm === 'string' && !choiceSpecs.some((s) => s.id === m.id))
      choiceSpecs.push({ id: m.id, webllm: m.webllm, fallback: 'remote' });
  }
}
const engine = new CompositeEngine([new ScriptedEngine(), choice, webllm, wllama, remote]);
// The core holds `GET /v1/models` (and so the page's `ready`) until the engines' lists are complete,
// bounded by CompositeEngine; the wllama engine starts now when the page registered GGUF models.
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
        streamIdleMs: options.server.streamIdleMs,
        vectorStores: workerOptions(self.name).fileSearch,
        // Sandboxes start with a response that offers code_interpreter, never at page load (sandbox-host.ts).
        // Its code is a chunk of its own, loaded by the first call or prewarm (lazy-python.ts).
        python: lazyPythonRunner(async () => {
          const { SandboxHost, startSandboxWorker, cacheSnapshotStore } = await import('../sandbox');
          return new SandboxHost({
            startWorker: () => startSandboxWorker(),
            // Sandboxes after the first start from its interpreter snapshot (src/sandbox/snapshot.ts).
            snapshots: cacheSnapshotStore(self.location.origin),
            ...workerOptions(self.name).codeInterpreter,
          });
        }),
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

// Where a stream cannot be transferred (Safari up to 26.5), or where a page asks for the pipe, bodies
// are pulled over a MessagePort: said once, so a slow stream in one browser is explained.
const transferStreams = options.server.responseBodies !== 'pipe' && canTransferStreams;
if (!transferStreams)
  console.info('[intab] response bodies go to the service worker over a MessagePort pipe');

const api = createEngineApi({
  server: getServer,
  transferStreams,
  load: (modelId, onProgress) => engine.load(modelId, onProgress),
  gpuStatus: () => probeGpu(),
  cancelLoad: (modelId) => engine.cancelLoad(modelId),
  addModel: async (spec) => {
    const added = (await wllama.engine()).addModel(spec);
    return {
      id: added.id,
      object: 'model',
      created: added.created,
      owned_by: added.owned_by,
      engine: 'wllama',
      cached: added.cached,
    };
  },
  addRemote: async (spec) => {
    const added = await (await remote.engine()).addServer(spec);
    chooseLocally(spec);
    return added.map((m) => ({
      id: m.id,
      object: 'model' as const,
      created: m.created,
      owned_by: m.owned_by,
      engine: 'remote',
    }));
  },
});

self.addEventListener('message', (event: MessageEvent) => {
  if (isMessage<Extract<PageToWorkerMessage, { type: 'remote' }>>(event.data, 'remote')) {
    const servers = Array.isArray(event.data.servers) ? event.data.servers : [];
    for (const spec of servers) chooseLocally(spec);
    remoteServers(servers);
    return;
  }
  const port = event.ports[0];
  if (!isMessage<Extract<PageToWorkerMessage, { type: 'connect' }>>(event.data, 'connect') || !port) return;
  Comlink.expose(api, port);
  // Chromium ≥ 123 fires `close` on an entangled port whose peer went away; elsewhere the port just
  // lingers until GC. Closing releases comlink's listener either way.
  port.addEventListener('close', () => port.close());
});
