import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix, resolve } from 'node:path';
import { build, parseAst } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The JavaScript budget of a page that only uses `scripted` (issue 36), in kB of 1000 bytes, as the
 * bench's `scripted_page_js_kb` counts it: the page's script, the engine worker, `sw.js`, and every
 * chunk they import statically. Chunks behind `import()` (web-llm, llama.cpp, pdf.js, o200k, hosted
 * tools, files, vector stores, containers…) are fetched only when a request needs them.
 */
const BUDGET_KB = 300;

const root = resolve(import.meta.dirname, '../../..');
const outDir = mkdtempSync(join(tmpdir(), 'intab-budget-'));

/** Relative specifiers a chunk imports statically (`import … from`, `export … from`), not `import()`. */
function staticImports(code: string): string[] {
  const out: string[] = [];
  for (const node of parseAst(code).body) {
    const source = 'source' in node ? (node.source as { value?: unknown } | null) : null;
    if (typeof source?.value === 'string' && source.value.startsWith('.')) out.push(source.value);
  }
  return out;
}

/** Each file's URL path → its size, for `entries` and their static import closure. */
function closure(entries: string[]): Map<string, number> {
  const seen = new Map<string, number>();
  const queue = [...entries];
  // Each chunk is read once: linear in the build's chunks.
  while (queue.length > 0) {
    const path = queue.shift() as string;
    if (seen.has(path)) continue;
    const file = join(outDir, path);
    seen.set(path, statSync(file).size);
    for (const spec of staticImports(readFileSync(file, 'utf8')))
      queue.push(posix.join(posix.dirname(path), spec));
  }
  return seen;
}

let files = new Map<string, number>();

beforeAll(async () => {
  // The bench's scripted page (bench/scripted.html) alone, built with the app's own config.
  await build({
    root,
    logLevel: 'silent',
    build: {
      outDir,
      emptyOutDir: true,
      rolldownOptions: { input: { scripted: resolve(root, 'bench/scripted.html') } },
    },
  });
  const html = readFileSync(join(outDir, 'bench/scripted.html'), 'utf8');
  const pageEntries = [...html.matchAll(/<script type="module"[^>]*src="([^"]+)"/g)].map(
    (m) => m[1] as string,
  );
  const page = closure(pageEntries);
  // The engine worker the page starts (`new Worker(new URL(…engine-worker-*.js…))`).
  const workers = new Set<string>();
  for (const path of page.keys()) {
    for (const m of readFileSync(join(outDir, path), 'utf8').matchAll(/engine-worker-[\w-]+\.js/g))
      workers.add(`/assets/${m[0]}`);
  }
  files = closure([...page.keys(), ...workers, '/sw.js']);
}, 180_000);

afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('the JavaScript of a scripted-only page', () => {
  it('loads one engine worker and no engine chunk', () => {
    const paths = [...files.keys()];
    expect(paths.filter((p) => /engine-worker-/.test(p))).toHaveLength(1);
    expect(paths.filter((p) => /web-llm|wllama|pdfjs|o200k|web-xgrammar/.test(p))).toEqual([]);
  });

  it(`stays under ${BUDGET_KB} kB (page, engine worker, sw.js and their static imports)`, () => {
    const total = [...files.values()].reduce((n, size) => n + size, 0);
    const listing = [...files].map(([path, size]) => `${path} ${(size / 1000).toFixed(1)} kB`).join('\n');
    expect(total / 1000, listing).toBeLessThan(BUDGET_KB);
  });
});
