/**
 * The bench's engine worker. It is composed exactly as `src/worker/engine-worker.ts` composes the
 * production one (the same `createEngineApi`, `createResponsesServer`, `openIdbStore` and run locks,
 * exposed on every `connect` port the service worker is handed) minus web-llm, whose background
 * model-list fetch would only add noise, plus two bench-only things that production must not carry:
 * - a port on `{type: 'bench-connect'}` exposing {@link BenchApi}: the same requests run and read
 *   inside this worker, with no transport;
 * - the route {@link FLOOR_PATH}: pre-generated SSE bytes streamed through the production path
 *   (engine API → transferred stream → service worker → page) with no Responses work at all, cut
 *   either one chunk per event (`?chunks=event`) or in slices of the core's coalescing limit.
 */
import './idb-counter';
import * as Comlink from 'comlink';
import { SSE_HEADERS } from '../src/core/http/sse';
import { SSE_COALESCE_LIMIT } from '../src/core/http/sse-body';
import { createResponsesServer, type ResponsesServer } from '../src/core/index';
import { CompositeEngine, ScriptedEngine } from '../src/engine/index';
import { openIdbStore } from '../src/store/index';
import { createEngineApi } from '../src/worker/engine-api';
import { probeGpu } from '../src/worker/gpu-status';
import { isMessage, type PageToWorkerMessage } from '../src/worker/protocol';
import { webRunLocks } from '../src/worker/run-locks';
import { startBlockWatch, stopBlockWatch } from './block-watch';
import { idbTransactionCount } from './idb-counter';
import { type BenchApi, FLOOR_PATH, type FloorChunking } from './protocol';
import { readJson, readSse } from './sse-reader';

const engine = new CompositeEngine([new ScriptedEngine()]);
let server: Promise<ResponsesServer> | null = null;

function getServer(): Promise<ResponsesServer> {
  server ??= openIdbStore().then((store) => {
    const created = createResponsesServer({ engine, store, runLocks: webRunLocks() });
    void created.recover().catch(() => {});
    return created;
  });
  return server;
}

/** The pre-generated body, cut two ways: one chunk per SSE frame, and slices of the coalescing limit. */
let floor: Record<FloorChunking, Uint8Array[]> = { event: [], coalesced: [] };

/** The pre-generated chunks, one per pull: no Responses work, no encoding. */
function floorResponse(chunking: FloorChunking): Response {
  const chunks = floor[chunking];
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[i++];
      if (chunk) controller.enqueue(chunk);
      else controller.close();
    },
  });
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}

function cutFloor(bytes: Uint8Array): Record<FloorChunking, Uint8Array[]> {
  const event: Uint8Array[] = [];
  let start = 0;
  for (let i = 1; i < bytes.length; i++) {
    // Frames end with a blank line: "\n\n" (10, 10).
    if (bytes[i] === 10 && bytes[i - 1] === 10) {
      event.push(bytes.slice(start, i + 1));
      start = i + 1;
    }
  }
  if (start < bytes.length) event.push(bytes.slice(start));
  const coalesced: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += SSE_COALESCE_LIMIT) {
    coalesced.push(bytes.slice(i, i + SSE_COALESCE_LIMIT));
  }
  return { event, coalesced };
}

/** The server the service worker's requests reach: the core, plus the floor route. */
const served = {
  async fetch(req: Request): Promise<Response> {
    const url = new URL(req.url);
    if (url.pathname === FLOOR_PATH) {
      return floorResponse(url.searchParams.get('chunks') === 'event' ? 'event' : 'coalesced');
    }
    return (await getServer()).fetch(req);
  },
};

const api = createEngineApi({
  server: async () => served,
  load: (modelId, onProgress) => engine.load(modelId, onProgress),
  gpuStatus: () => probeGpu(),
});

function localRequest(body: object): Request {
  return new Request(new URL('/v1/responses', self.location.origin), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const bench: BenchApi = {
  async localStream(body) {
    const s = await getServer();
    const t0 = performance.now();
    const res = await s.fetch(localRequest(body));
    if (!res.body) throw new Error(`no body (HTTP ${res.status})`);
    return readSse(res.body, t0, { paced: true });
  },
  async localJson(body) {
    const s = await getServer();
    const t0 = performance.now();
    return readJson(await s.fetch(localRequest(body)), t0);
  },
  async prepareFloor(body) {
    const res = await (await getServer()).fetch(localRequest(body));
    const bytes = new Uint8Array(await res.arrayBuffer());
    floor = cutFloor(bytes);
    return {
      bytes: bytes.byteLength,
      eventChunks: floor.event.length,
      coalescedChunks: floor.coalesced.length,
    };
  },
  async localFloor(chunking) {
    const t0 = performance.now();
    return readSse(floorResponse(chunking).body as ReadableStream<Uint8Array>, t0);
  },
  async idbTransactions() {
    return idbTransactionCount();
  },
  async startBlockWatch(label) {
    startBlockWatch(label);
  },
  async stopBlockWatch() {
    return stopBlockWatch();
  },
};

self.addEventListener('message', (event: MessageEvent) => {
  const port = event.ports[0];
  if (!port) return;
  if (isMessage<PageToWorkerMessage>(event.data, 'connect')) Comlink.expose(api, port);
  else if (isMessage<{ type: 'bench-connect' }>(event.data, 'bench-connect')) Comlink.expose(bench, port);
  else return;
  port.addEventListener('close', () => port.close());
});
