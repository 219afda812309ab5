/**
 * The builds the matrix serves, made once before its files run (the project's global setup):
 * - `dist/`, the demo exactly as `npm start` builds and serves it, with the tiny test GGUF in it. The
 *   demo offers `tiny-random` only if the GGUF existed when it was built, and `npm test` builds
 *   before any global setup made the GGUF: so dist/ is built again when its copy is missing or stale.
 * - `.tmp/browsers-dist/`, the same app plus the e2e page that opts into WebSocket mode
 *   (`startIntab({ webSocket: true })`, tests/e2e/pages/websocket.html): the demo does not opt in.
 *
 * @example
 * await prepareBuilds(); // then servePreview(DEMO_DIST), servePreview(WS_DIST)
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { build, type PreviewServer, preview } from 'vite';
import { ensureTestModel } from '../../scripts/build-test-gguf.mjs';
import { freePort } from '../e2e/harness';

const root = resolve(import.meta.dirname, '../..');
export const DEMO_DIST = resolve(root, 'dist');
export const WS_DIST = resolve(root, '.tmp/browsers-dist');
/** Where the demo's build puts the test GGUF (vite.config.ts). */
const MODEL_IN_DIST = 'test-models/intab-tiny-random.gguf';
/** The page of WS_DIST that opts into WebSocket mode; its hash holds `startIntab` options. */
export const WS_PAGE = '/tests/e2e/pages/websocket.html';

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** Builds what is missing or stale; answers what it did, for the log. */
export async function prepareBuilds(): Promise<string[]> {
  const done: string[] = [];
  const { path, built } = await ensureTestModel('tiny');
  if (built) done.push(`built ${path}`);
  const copy = resolve(DEMO_DIST, MODEL_IN_DIST);
  const fresh = existsSync(resolve(DEMO_DIST, 'sw.js')) && existsSync(copy) && sha256(copy) === sha256(path);
  if (!fresh) {
    await build({ root, logLevel: 'warn' });
    done.push('built dist/ (it had no current copy of the test GGUF)');
  }
  await build({
    root,
    logLevel: 'warn',
    build: {
      outDir: WS_DIST,
      emptyOutDir: true,
      rolldownOptions: {
        input: { main: resolve(root, 'index.html'), webSocket: resolve(root, `.${WS_PAGE}`) },
      },
    },
  });
  done.push(`built ${WS_DIST}`);
  return done;
}

/** Serves a build with `vite preview` and this repo's config, as `npm start` serves dist/. */
export async function servePreview(outDir: string): Promise<{ baseUrl: string; server: PreviewServer }> {
  const port = await freePort();
  const server = await preview({
    root,
    logLevel: 'warn',
    build: { outDir },
    preview: { host: '127.0.0.1', port, strictPort: true },
  });
  return { baseUrl: `http://127.0.0.1:${port}`, server };
}
