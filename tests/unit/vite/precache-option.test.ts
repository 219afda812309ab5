/**
 * Issue 35: `intab()` alone precaches the build into its service worker, and
 * `serviceWorker: { precache: false }` turns that off (the manifest left empty). A real `vite build`
 * of a one-page app, as a user's would run.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'vite';
import { afterAll, describe, expect, it } from 'vitest';
import { type IntabPluginOptions, intab } from '../../../src/vite/plugin';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function builtServiceWorker(opts: IntabPluginOptions): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'intab-precache-option-'));
  dirs.push(root);
  writeFileSync(join(root, 'index.html'), '<!doctype html><script type="module" src="./main.js"></script>');
  writeFileSync(join(root, 'main.js'), 'document.title = "app";');
  // A file the build copies from public/ as it is: no hash in its name.
  mkdirSync(join(root, 'public/assets'), { recursive: true });
  writeFileSync(join(root, 'public/assets/notes.json'), '{"v":1}');
  // As if it were one of intab's lazy chunks: the service worker learns its length.
  writeFileSync(join(root, 'public/assets/pdfjs-Ab12Cd34.js'), 'export {};');
  await build({ root, configFile: false, logLevel: 'silent', plugins: intab(opts) });
  return readFileSync(join(root, 'dist/sw.js'), 'utf8');
}

describe('intab()’s precache option', () => {
  it('precaches the app’s page and scripts by default, and nothing when turned off', async () => {
    const byDefault = await builtServiceWorker({});
    expect(byDefault).toContain('{"url":"index.html","revision":"');
    expect(byDefault).toMatch(/"url":"assets\/index-[^"]+\.js","revision":null/);
    // Issue 43: a public/ file under assets/ is revisioned, so a deploy that changes it refreshes it.
    expect(byDefault).toMatch(/"url":"assets\/notes\.json","revision":"[0-9a-f]{32}"/);
    // Issue 43: the runtime cache checks a lazy asset's length against the build's.
    expect(byDefault).toMatch(/"assets\/pdfjs-Ab12Cd34\.js":10\b/);
    expect(byDefault).not.toContain('__WB_MANIFEST');
    const off = await builtServiceWorker({
      serviceWorker: { precache: false, navigateFallbackDenylist: [/^\/api\//i] },
    });
    // Issue 43: the app's denylist reaches intab's service worker, as [source, flags].
    expect(off).toMatch(/deny:\[\[[`"]\^\\\\\/api\\\\\/[`"],[`"]i[`"]\]\]/);
    expect(off).not.toContain('"url":"index.html"');
    expect(off).not.toContain('__WB_MANIFEST');
  }, 300_000);
});
