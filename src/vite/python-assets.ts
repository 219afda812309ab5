/**
 * `intab/vite`'s part for `code_interpreter`: Pyodide's core and standard library (from the app's
 * `pyodide` package) and the sandbox worker's script, served at `/intab-python/` from the app's
 * own origin. Built into `outDir/intab-python/` and served by the dev server; never precached, so a
 * page that never runs Python downloads none of it.
 */
import { copyFileSync, createReadStream, existsSync, mkdirSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';
import { PYODIDE_FILES, PYTHON_ASSET_PATH, SANDBOX_SCRIPT } from '../sandbox/protocol.ts';
import { AppBuild, bundleScript } from './app-build.ts';

const TYPES: Record<string, string> = {
  '.mjs': 'text/javascript',
  '.js': 'text/javascript',
  '.wasm': 'application/wasm',
  '.zip': 'application/zip',
  '.json': 'application/json',
};

/** The sandbox's source: the built entry beside this file in the package, the TypeScript in the repo. */
function sandboxEntry(): string {
  const lib = fileURLToPath(new URL('./python-sandbox.js', import.meta.url));
  return existsSync(lib) ? lib : fileURLToPath(new URL('../sandbox/python-worker.ts', import.meta.url));
}

/** The `pyodide` package folder (the app's, else intab's own dependency), or null when neither resolves. */
function pyodideDir(root: string): string | null {
  for (const from of [resolve(root, 'package.json'), fileURLToPath(import.meta.url)]) {
    try {
      return dirname(createRequire(from).resolve('pyodide/package.json'));
    } catch {}
  }
  return null;
}

/** Bundles the sandbox into one ES module (Pyodide itself stays a runtime import of its own file). */
function bundleSandbox(root: string, outDir: string | null): Promise<string> {
  return bundleScript(root, outDir, {
    entry: sandboxEntry(),
    formats: ['es'],
    fileName: () => SANDBOX_SCRIPT,
  });
}

/**
 * The plugin. Without the `pyodide` package installed it does nothing, and `code_interpreter`
 * calls end `failed` saying Python could not load.
 */
export function pythonAssetsPlugin(): Plugin {
  const app = new AppBuild();
  return {
    name: 'intab:python-assets',
    ...app.hooks,
    configureServer(server) {
      let script: Promise<string> | null = null;
      server.middlewares.use(PYTHON_ASSET_PATH, (req, res: ServerResponse, next) => {
        const name = (req.url ?? '').replace(/^\//, '').replace(/\?.*$/, '');
        const dir = pyodideDir(app.root);
        if (name === SANDBOX_SCRIPT) {
          script ??= bundleSandbox(app.root, null);
          script.then((code) => {
            res.setHeader('content-type', 'text/javascript');
            res.end(code);
          }, next);
          return;
        }
        if (!dir || !PYODIDE_FILES.includes(name)) return next();
        res.setHeader('content-type', TYPES[name.slice(name.lastIndexOf('.'))] ?? 'application/octet-stream');
        createReadStream(resolve(dir, name)).pipe(res);
      });
    },
    async closeBundle() {
      if (!app.builtClient(this)) return;
      const dir = pyodideDir(app.root);
      if (!dir) return;
      const target = resolve(app.outDir, PYTHON_ASSET_PATH.slice(1));
      mkdirSync(target, { recursive: true });
      for (const name of PYODIDE_FILES) copyFileSync(resolve(dir, name), resolve(target, name));
      await bundleSandbox(app.root, target);
    },
  };
}
