/**
 * Issue 15, class 17, in Chromium with the real web-llm (SwiftShader WebGPU, no weights): self-hosted
 * models whose files come from a local server that sends them slowly. A download that keeps sending
 * bytes outlives `loadTimeoutMs`, however long it takes (web-llm reports no progress while it fetches
 * a file); one that goes silent fails with `model_load_timeout`; and with `maxQueue: 1`, a second
 * request while the first waits for the load is refused with a 429 and `retry-after`, through the
 * service worker. (A generation that stalls needs a model that generates: see engine-limits.test.ts.)
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, answerOf, overflowQueue, sendFirst } from './engine-bounds.page';
import { type AppSession, freePort, openApp } from './harness';

const LOAD_TIMEOUT_MS = 1_500;
/** The steady server sends its config a byte every 100 ms for this long: well past the timeout. */
const STEADY_MS = 4_000;

/**
 * Serves the steady (and queued) model's `mlc-chat-config.json` slowly but steadily, the stalled one's a byte
 * then nothing, and a 404 for everything else (the model library), with CORS for the engine
 * worker's origin. web-llm asks for `<model>/resolve/main/mlc-chat-config.json`, as on Hugging Face.
 */
function slowServer(): Server {
  return createServer((req, res) => {
    res.setHeader('access-control-allow-origin', '*');
    if (req.url === '/queued/resolve/main/mlc-chat-config.json') queuedLoading();
    if (/^\/(steady|queued)\/resolve\/main\/mlc-chat-config\.json$/.test(req.url ?? '')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
      const timer = setInterval(() => res.write(' '), 100);
      setTimeout(() => {
        clearInterval(timer);
        res.end('}');
      }, STEADY_MS);
      req.on('close', () => clearInterval(timer));
    } else if (req.url === '/stall/resolve/main/mlc-chat-config.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
    } else {
      res.writeHead(404).end();
    }
  });
}

/** Resolves once the queued model's load has begun: its first request is then waiting on it. */
let queuedLoading: () => void = () => {};
const queuedLoads = new Promise<void>((resolve) => {
  queuedLoading = resolve;
});

let server: Server;
let app: AppSession & { pageErrors: string[] };
let base = '';
const record = (name: string) => ({
  model: `${base}/${name}/`,
  model_id: `${name[0]?.toUpperCase()}${name.slice(1)}-Qwen3-0.6B-q4f32_1-MLC`,
  model_lib: `${base}/${name}/Qwen3-0.6B-q4f32_1-ctx4k_cs1k-webgpu.wasm`,
});
let steady = '';
let stall = '';
let queued = '';

beforeAll(async () => {
  const port = await freePort();
  server = slowServer();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  base = `http://127.0.0.1:${port}`;
  // Each test its own model: a model whose load failed is loaded afresh by the next request.
  // (web-llm caches what it fetched by URL, so each has its own path too).
  const models = [record('steady'), record('stall'), record('queued')];
  [steady, stall, queued] = models.map((m) => m.model_id) as [string, string, string];
  const options = { webllm: { models, loadTimeoutMs: LOAD_TIMEOUT_MS, maxQueue: 1 } };
  app = await openApp({
    path: `/tests/e2e/pages/options.html#${encodeURIComponent(JSON.stringify(options))}`,
    testPages: true,
  });
});
afterAll(async () => {
  await app?.close();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});

/** The download failed for a reason other than silence: the model library is a 404. */
function expectLoadOutlivedTheTimeout(a: Answer): void {
  expect(a.code).toBe('model_download_failed');
  expect(a.status).toBe(503);
  expect(a.ms).toBeGreaterThan(STEADY_MS - 500);
}

describe('the model-load watchdog', () => {
  it('keeps a load alive while its download keeps sending bytes, with no progress report', async () => {
    expectLoadOutlivedTheTimeout(await app.page.evaluate(answerOf, steady));
  });

  it('fails a load whose download goes silent with 504 model_load_timeout', async () => {
    const a = await app.page.evaluate(answerOf, stall);
    // The watchdog's own code (nothing else ends a silent download), and not before its bound; a
    // load only makes it later, so no upper margin.
    expect([a.status, a.code]).toEqual([504, 'model_load_timeout']);
    expect(a.ms).toBeGreaterThanOrEqual(LOAD_TIMEOUT_MS);
  });
});

describe('the queue cap', () => {
  it('refuses a request past maxQueue with a 429 and retry-after, before any header', async () => {
    // The second is sent once the server sees the first's load begin (no sleep to race), and must be
    // refused while the first still waits: it is answered before the first (order, not time).
    await app.page.evaluate(sendFirst, queued);
    await queuedLoads;
    const { first, second, third } = await app.page.evaluate(overflowQueue);
    expect([second.status, second.code]).toEqual([429, 'rate_limit_exceeded']);
    expect(Number(second.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(second.order).toBeLessThan(first.order);
    expectLoadOutlivedTheTimeout(first);
    // The third came while the first still waited: refused too, and nothing was left queued after.
    expect(third.status).toBe(429);
    expect(third.order).toBeLessThan(first.order);
    expect((await app.page.evaluate(answerOf, 'scripted')).status).toBe(200);
  });

  it('left no errors in the page', () => {
    expect(app.pageErrors).toEqual([]);
  });
});
