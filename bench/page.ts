/**
 * The bench page: wired like `startIntab()` (service worker at /sw.js, an engine worker, the same
 * port broker and readiness checks), except that its engine worker is the bench build of it
 * (bench/engine-worker.ts). `bench/run.mjs` drives `window.intabBench` with playwright-core.
 */
import * as Comlink from 'comlink';
import { brokerPorts } from '../src/client/port-broker';
import { waitForControl, waitForModels } from '../src/client/readiness';
import type { PageToWorkerMessage } from '../src/worker/protocol';
import { heavyRequests } from './heavy-requests';
import type { BenchApi, FloorChunking } from './protocol';
import { type JsonRead, readJson, readSse, type SseRead } from './sse-reader';

const worker = new Worker(new URL('./engine-worker.ts', import.meta.url), {
  type: 'module',
  name: 'intab-engine',
});

function connect(type: 'connect' | 'bench-connect'): MessagePort {
  const { port1, port2 } = new MessageChannel();
  worker.postMessage({ type } satisfies PageToWorkerMessage | { type: 'bench-connect' }, [port1]);
  return port2;
}

const local = Comlink.wrap<BenchApi>(connect('bench-connect'));

/** `need-port` requests the service worker sent this page (one per service-worker restart). */
let needPorts = 0;
navigator.serviceWorker.addEventListener('message', (event) => {
  if ((event.data as { type?: string } | null)?.type === 'need-port') needPorts += 1;
});

async function start(): Promise<void> {
  const deadline = Date.now() + 30_000;
  const container = navigator.serviceWorker;
  brokerPorts(container, () => connect('connect'));
  const registration = await container.register('/sw.js', { scope: '/' });
  await waitForControl(container, registration, deadline);
  await waitForModels(new URL('/', location.href), deadline);
}

function post(body: object): RequestInit {
  return { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

/** A streamed request through the service worker, read with the same reader the worker uses. */
async function pageStream(body: object, path = '/v1/responses'): Promise<SseRead> {
  const t0 = performance.now();
  const res = await fetch(path, post(body));
  if (!res.body || res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  return readSse(res.body, t0);
}

async function pageJson(body: object): Promise<JsonRead> {
  const t0 = performance.now();
  return readJson(await fetch('/v1/responses', post(body)), t0);
}

/** `bodies` streamed at once; each read's times are from the common start. */
async function concurrent(bodies: object[]): Promise<{ totalMs: number; reads: SseRead[] }> {
  const t0 = performance.now();
  const reads = await Promise.all(
    bodies.map(async (body) => {
      const res = await fetch('/v1/responses', post(body));
      if (!res.body || res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
      return readSse(res.body, t0);
    }),
  );
  return { totalMs: performance.now() - t0, reads };
}

/** One heavy request's figures: its status, and the engine worker's longest block while it ran. */
export interface HeavyBlock {
  name: string;
  bytes: number;
  status: number;
  expected: number;
  blockMs: number;
  totalMs: number;
  /** The start of the body when the status is not the expected one. */
  error: string | null;
}

/**
 * Sends each of the heavy requests (bench/heavy-requests.ts, fresh bodies from `salt`) through the
 * service worker while `streams` streams keep running, and reads the engine worker's longest
 * synchronous block during each: `max_event_loop_block_ms`.
 */
async function heavyBlocks(salt: string, streams: number): Promise<HeavyBlock[]> {
  let streaming = true;
  const background = Array.from({ length: streams }, async () => {
    while (streaming) {
      // A stalled worker fails streams too (503s): keep streaming; the heavy request's status says it.
      await pageStream({ model: 'scripted', input: '!words 3000', stream: true, store: false }).catch(
        () => new Promise((resolve) => setTimeout(resolve, 50)),
      );
    }
  });
  const out: HeavyBlock[] = [];
  try {
    for (const r of heavyRequests(salt)) {
      const body = JSON.stringify(r.body);
      await local.startBlockWatch(r.name);
      const t0 = performance.now();
      const res = await fetch(r.path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      const text = await res.text();
      const blockMs = await local.stopBlockWatch();
      out.push({
        name: r.name,
        bytes: body.length,
        status: res.status,
        expected: r.status,
        blockMs,
        totalMs: performance.now() - t0,
        error: res.status === r.status ? null : text.slice(0, 300),
      });
    }
  } finally {
    streaming = false;
    await Promise.all(background);
  }
  return out;
}

const api = {
  ready: start(),
  heavyBlocks,
  pageStream,
  pageJson,
  concurrent,
  needPorts: () => needPorts,
  localStream: (body: object) => local.localStream(body),
  localJson: (body: object) => local.localJson(body),
  prepareFloor: (body: object) => local.prepareFloor(body),
  localFloor: (chunking: FloorChunking) => local.localFloor(chunking),
  idbTransactions: () => local.idbTransactions(),
};

declare global {
  interface Window {
    intabBench: typeof api;
  }
}
window.intabBench = api;
