/**
 * Two deploys of one app, for the update tests (issue 46): the demo and the options page built
 * with the repo's config into a folder of their own, each HTML page marked with the build's name
 * (`<meta name="intab-build">`, which also changes the precache manifest and so `sw.js`), the
 * second with pages the first lacks. Both are served in turn on one port, i.e. one origin, as a
 * host serves one deploy after the other.
 */
import { resolve } from 'node:path';
import { build, type Plugin, type PreviewServer, preview } from 'vite';

const root = resolve(import.meta.dirname, '../..');

/** The name a page of a build carries, read from the page. */
export const BUILD_META = 'intab-build';

function markBuild(name: string): Plugin {
  return {
    name: 'intab-test:mark-build',
    transformIndexHtml: () => [{ tag: 'meta', attrs: { name: BUILD_META, content: name }, injectTo: 'head' }],
  };
}

/**
 * Builds the app (and the options page, plus `extraPages`: paths from the repo root) into
 * `.tmp/builds/<name>`; resolves with that folder.
 *
 * @example
 * const a = await buildDeploy('a'); const b = await buildDeploy('b', ['tests/e2e/pages/update-added.html']);
 */
export async function buildDeploy(name: string, extraPages: readonly string[] = []): Promise<string> {
  const outDir = resolve(root, '.tmp/builds', name);
  const input: Record<string, string> = {
    main: resolve(root, 'index.html'),
    options: resolve(root, 'tests/e2e/pages/options.html'),
  };
  extraPages.forEach((page, i) => {
    input[`extra${i}`] = resolve(root, page);
  });
  await build({
    root,
    logLevel: 'warn',
    plugins: [markBuild(name)],
    build: { outDir, emptyOutDir: true, rolldownOptions: { input } },
  });
  return outDir;
}

/**
 * Serves `outDir` with vite preview on `port` (the same port for each deploy: the same origin).
 *
 * @example
 * const server = await serveDeploy(a, port); await server.close(); await serveDeploy(b, port);
 */
export function serveDeploy(outDir: string, port: number): Promise<PreviewServer> {
  return preview({
    root,
    logLevel: 'warn',
    build: { outDir },
    preview: { host: '127.0.0.1', port, strictPort: true },
  });
}
