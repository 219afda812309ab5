/**
 * Shared end-to-end harness: serves the production build (`dist/`, built by `npm run test:e2e`) with
 * `vite preview`, and drives Debian's Chromium through playwright-core. Each test file gets its own
 * browser context, i.e. a fresh origin state: no service worker, no IndexedDB, no caches.
 *
 * @example
 * let app: AppSession;
 * beforeAll(async () => { app = await openApp(); });
 * afterAll(() => app?.close());
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { build, type PreviewServer, preview } from 'vite';
import chromiumConfig from '../chromium.json';

const root = resolve(import.meta.dirname, '../..');
const dist = resolve(root, 'dist');
/** The app plus the e2e pages (tests/e2e/pages), built apart so that dist/ ships no test page. */
const e2eDist = resolve(root, '.tmp/e2e-dist');

/**
 * Debian's Chromium and its flags (shared with the bench): headless, no sandbox (containers), and
 * nothing that phones home during tests. Never `playwright install`.
 */
const CHROMIUM: { executablePath: string; args: string[] } = chromiumConfig;

/** One test file's browser, context, page and server. */
export interface AppSession {
  baseUrl: string;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** Builds `dist/` if a previous step has not (the `test:e2e` script builds first). */
function ensureBuilt(): void {
  if (existsSync(resolve(dist, 'sw.js')) && existsSync(resolve(dist, 'index.html'))) return;
  execFileSync('npx', ['vite', 'build'], { cwd: root, stdio: 'inherit' });
}

/**
 * A port nothing listens on now, for a server this run starts.
 *
 * @example
 * const port = await freePort();
 */
export async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => ok(port));
    });
  });
}

/**
 * Builds the app and the e2e pages into `.tmp/e2e-dist`, every time (a stale build would test old
 * code; it takes a few seconds). A page lands at its source path: `/tests/e2e/pages/options.html`.
 */
export async function buildWithTestPages(): Promise<string> {
  await build({
    root,
    logLevel: 'warn',
    build: {
      outDir: e2eDist,
      emptyOutDir: true,
      rolldownOptions: {
        input: {
          main: resolve(root, 'index.html'),
          options: resolve(root, 'tests/e2e/pages/options.html'),
          liveness: resolve(root, 'tests/e2e/pages/liveness.html'),
          vectorStores: resolve(root, 'tests/e2e/pages/vector-stores.html'),
          pythonSandbox: resolve(root, 'tests/e2e/pages/python-sandbox.html'),
          webSocket: resolve(root, 'tests/e2e/pages/websocket.html'),
        },
      },
    },
  });
  return e2eDist;
}

/**
 * Serves `dist/` exactly as `npm start` does (vite preview, with this repo's config), or, with
 * `testPages`, a build that also has the e2e pages.
 */
export async function startPreview(
  opts: { testPages?: boolean } = {},
): Promise<{ baseUrl: string; server: PreviewServer }> {
  let outDir = dist;
  if (opts.testPages) outDir = await buildWithTestPages();
  else ensureBuilt();
  const port = await freePort();
  const server = await preview({
    root,
    logLevel: 'warn',
    build: { outDir },
    preview: { host: '127.0.0.1', port, strictPort: true },
  });
  return { baseUrl: `http://127.0.0.1:${port}`, server };
}

/** Launches Chromium. Never `playwright install`: the system's Chromium is the browser under test. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch(CHROMIUM);
}

/**
 * Waits, inside the page, until `GET /v1/models` answers 200 JSON through the service worker. The
 * controller check matters: an uncontrolled fetch reaches the preview server instead.
 */
export async function waitForReady(page: Page, timeoutMs = 30_000): Promise<void> {
  await page.evaluate(async (ms) => {
    const end = Date.now() + ms;
    let last = 'nothing yet';
    while (Date.now() < end) {
      if (navigator.serviceWorker.controller) {
        try {
          const res = await fetch('/v1/models');
          if (res.status === 200 && res.headers.get('content-type')?.includes('json')) return;
          last = `HTTP ${res.status} ${await res.text()}`;
        } catch (err) {
          last = String(err);
        }
      } else {
        last = 'page not controlled';
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`intab not ready after ${ms} ms: ${last}`);
  }, timeoutMs);
}

/**
 * Starts the server and Chromium, opens `path` (the demo at `/` by default) in a fresh context and
 * waits for readiness. Page errors are collected so tests can assert the page stayed clean; the
 * console is kept in `consoleLines`.
 *
 * @example
 * const app = await openApp({ path: `/tests/e2e/pages/options.html#${encodeURIComponent(json)}`, testPages: true });
 */
export async function openApp(
  opts: { path?: string; testPages?: boolean } = {},
): Promise<AppSession & { pageErrors: string[]; consoleLines: string[] }> {
  const { baseUrl, server } = await startPreview({ testPages: opts.testPages });
  const browser = await launchChromium();
  const context = await browser.newContext({ baseURL: baseUrl });
  const page = await context.newPage();
  const pageErrors: string[] = [];
  const consoleLines: string[] = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('console', (msg) => consoleLines.push(`${msg.type()}: ${msg.text()}`));
  await page.goto(opts.path ?? '/');
  try {
    await waitForReady(page);
  } catch (err) {
    await browser.close().catch(() => {});
    await server.close();
    // The page's console usually says why (a failed install, a registration error).
    throw new Error(`${err instanceof Error ? err.message : err}\npage console:\n${consoleLines.join('\n')}`);
  }
  return {
    baseUrl,
    browser,
    context,
    page,
    pageErrors,
    consoleLines,
    async close() {
      await browser.close().catch(() => {});
      await server.close();
    },
  };
}

/**
 * Stops every service worker through CDP (as Chromium does to an idle one) and waits until one is
 * reported stopped, so the next request really restarts the worker and re-asks for a port.
 *
 * @example
 * await stopServiceWorkers(app.page);
 */
export async function stopServiceWorkers(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  const stopped = new Promise<void>((resolve) => {
    cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
      if (versions.some((v) => v.runningStatus === 'stopped')) resolve();
    });
  });
  await cdp.send('ServiceWorker.enable');
  await cdp.send('ServiceWorker.stopAllWorkers');
  await stopped;
  await cdp.detach();
}
