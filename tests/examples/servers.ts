/**
 * Serves a built example: with the app's own Vite (`vite preview`, or the dev server), or, for apps
 * built without Vite, as plain static files, the way any static host would.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../e2e/harness';

export interface ServedExample {
  baseUrl: string;
  stop(): Promise<void>;
}

/**
 * `vite preview` (the built app) or `vite` (the dev server) in the example's folder, on a free port,
 * once it answers.
 *
 * @example
 * const app = await serveVite(dir, 'dev');
 */
export async function serveVite(dir: string, mode: 'preview' | 'dev'): Promise<ServedExample> {
  const port = await freePort();
  const args = [...(mode === 'preview' ? ['preview'] : []), '--host', '127.0.0.1', '--port', String(port)];
  const child: ChildProcess = spawn('npx', ['vite', ...args, '--strictPort'], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    // npx starts vite as a child: end the whole group.
    if (child.pid) {
      try {
        process.kill(-child.pid);
      } catch {}
    }
  };
  const end = Date.now() + 60_000;
  while (Date.now() < end) {
    try {
      if ((await fetch(baseUrl)).ok) return { baseUrl, stop };
    } catch {}
    await sleep(200);
  }
  await stop();
  throw new Error(`vite ${mode} in ${dir} did not answer on ${baseUrl}`);
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
};

/**
 * The files of `dir` over HTTP: `/` is index.html, a missing file is a 404. `withhold` lists paths
 * answered 404 even though they exist, to see how the app fails without them.
 *
 * @example
 * const app = await serveStatic(join(dir, 'dist'), { withhold: ['/engine-worker.js'] });
 */
export async function serveStatic(dir: string, opts: { withhold?: string[] } = {}): Promise<ServedExample> {
  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const file = join(dir, normalize(path === '/' ? '/index.html' : path));
    try {
      if (opts.withhold?.includes(path) || !file.startsWith(dir)) throw new Error('not served');
      const body = await readFile(file);
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'cache-control': 'no-cache',
      });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end(`${path} not found`);
    }
  });
  const port = await freePort();
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((ok) => {
        server.close(() => ok());
        server.closeAllConnections(); // the browser keeps its connections alive
      }),
  };
}
