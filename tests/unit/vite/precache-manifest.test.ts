/**
 * Issue 35: the precache `intab/vite` writes into its service worker holds the app's shell and
 * intab's runtime, and none of the lazy assets the README lists (cached on first use instead).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LAZY_ASSET_GLOBS } from '../../../src/common/lazy-assets';
import {
  globToRegExp,
  MAX_PRECACHED_FILE_BYTES,
  precacheManifest,
} from '../../../src/vite/precache-manifest';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function build(files: Record<string, string | number>): string {
  dir = mkdtempSync(join(tmpdir(), 'intab-precache-'));
  for (const [path, body] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), typeof body === 'number' ? Buffer.alloc(body) : body);
  }
  return dir;
}

describe('precacheManifest', () => {
  it('lists the shell and runtime, never a lazy asset, the service worker or a non-shell file', () => {
    const out = build({
      'index.html': '<html>',
      'sw.js': 'self.__WB_MANIFEST',
      'icon.svg': '<svg/>',
      'assets/index-a1.js': 'page',
      'assets/index-a1.css': 'css',
      'assets/engine-worker-b2.js': 'worker',
      'assets/web-llm-c3.js': 'lazy',
      'assets/wllama-d4.js': 'lazy',
      'assets/wllama-d4.wasm': 'lazy',
      'assets/wllama-engine-e5.js': 'lazy',
      'assets/pdfjs-f6.js': 'lazy',
      'assets/o200k-g7.js': 'lazy',
      'assets/web-xgrammar-h8.js': 'lazy',
      'intab-python/pyodide.asm.wasm': 'lazy',
      'intab-python/sandbox.js': 'lazy',
      'test-models/tiny.gguf': 'weights',
    });
    const { entries } = precacheManifest(out, ['sw.js']);
    expect(entries.map((e) => e.url)).toEqual([
      'assets/engine-worker-b2.js',
      'assets/index-a1.css',
      'assets/index-a1.js',
      'icon.svg',
      'index.html',
    ]);
    // Without the bundle's names, every file gets its content's revision.
    expect(entries.find((e) => e.url === 'index.html')?.revision).toMatch(/^[0-9a-f]{32}$/);
  });

  it('leaves the revision out only for hashed names the bundler wrote, never for a copied public/ file', () => {
    const out = build({
      'index.html': '<html>',
      'assets/index-BjWIp0CS.js': 'page',
      // Copied from the app's public/assets/: its name stays when a deploy changes it.
      'assets/notes.json': '{"v":1}',
      'assets/photo-Original.png': 'png',
    });
    const emitted = new Set(['index.html', 'assets/index-BjWIp0CS.js']);
    const revisions = Object.fromEntries(
      precacheManifest(out, [], emitted).entries.map((e) => [e.url, e.revision]),
    );
    expect(revisions['assets/index-BjWIp0CS.js']).toBeNull();
    for (const url of ['index.html', 'assets/notes.json', 'assets/photo-Original.png'])
      expect(revisions[url], url).toMatch(/^[0-9a-f]{32}$/);
    writeFileSync(join(out, 'assets/notes.json'), '{"v":2}');
    const next = precacheManifest(out, [], emitted).entries.find((e) => e.url === 'assets/notes.json');
    expect(next?.revision).not.toBe(revisions['assets/notes.json']);
  });

  it('changes an unhashed file’s revision with its content', () => {
    const first = precacheManifest(build({ 'index.html': 'one' }), []).entries[0]?.revision;
    rmSync(dir, { recursive: true, force: true });
    const second = precacheManifest(build({ 'index.html': 'two' }), []).entries[0]?.revision;
    expect(first).not.toBe(second);
  });

  it('leaves out a file over the size cap, and says so', () => {
    const out = build({ 'big.js': MAX_PRECACHED_FILE_BYTES + 1, 'small.js': 10 });
    const manifest = precacheManifest(out, []);
    expect(manifest.entries.map((e) => e.url)).toEqual(['small.js']);
    expect(manifest.tooBig).toEqual(['big.js']);
    expect(manifest.bytes).toBe(10);
  });
});

describe('globToRegExp', () => {
  it('reads * within a name and ** across folders, as workbox’s globIgnores do', () => {
    expect(globToRegExp('assets/o200k-*.js').test('assets/o200k-x.js')).toBe(true);
    expect(globToRegExp('assets/o200k-*.js').test('assets/sub/o200k-x.js')).toBe(false);
    expect(globToRegExp('intab-python/**').test('intab-python/a/b.wasm')).toBe(true);
    expect(LAZY_ASSET_GLOBS).toContain('assets/wllama-*');
  });
});
