/**
 * The service worker and the Python assets are built after the app, from the one `AppBuild` state:
 * into the app's own `outDir`, and not at all after a failed build.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'vite';
import { afterAll, describe, expect, it } from 'vitest';
import { intab } from '../../../src/vite/plugin';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function app(main: string): string {
  const root = mkdtempSync(join(tmpdir(), 'intab-app-build-'));
  dirs.push(root);
  writeFileSync(join(root, 'index.html'), '<!doctype html><script type="module" src="./main.js"></script>');
  writeFileSync(join(root, 'main.js'), main);
  return root;
}

describe('what intab/vite builds after the app', () => {
  it('goes into the outDir the app configured', async () => {
    const root = app('document.title = "app";');
    await build({ root, configFile: false, logLevel: 'silent', build: { outDir: 'out' }, plugins: intab() });
    expect(existsSync(join(root, 'out/sw.js'))).toBe(true);
    expect(existsSync(join(root, 'out/intab-python/sandbox.js'))).toBe(true);
    expect(existsSync(join(root, 'dist'))).toBe(false);
  }, 300_000);

  it('is not built when the app’s build failed', async () => {
    const root = app('import "./missing.js";');
    await expect(build({ root, configFile: false, logLevel: 'silent', plugins: intab() })).rejects.toThrow();
    expect(existsSync(join(root, 'dist/sw.js'))).toBe(false);
    expect(existsSync(join(root, 'dist/intab-python'))).toBe(false);
  }, 300_000);
});
