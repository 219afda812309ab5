import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The folder rules a reader relies on (CONTRIBUTING.md): every import points down, nothing imports
 * in a circle, no folder grows into a flat room, and tests live under tests/.
 */
const ROOT = join(import.meta.dirname, '../..');
const SOURCE_ROOTS = ['src', 'sw'];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** Relative imports of a file, resolved to repo paths (type-only imports count: they are arrows too). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map(
    (m) => m[1] ?? '',
  );
  return specs.flatMap((spec) => {
    const base = normalize(join(dirname(file), spec));
    const hit = [base, `${base}.ts`, `${base}/index.ts`].find(
      (c) => existsSync(join(ROOT, c)) && statSync(join(ROOT, c)).isFile(),
    );
    return hit ? [hit] : [];
  });
}

const files = SOURCE_ROOTS.flatMap(sourceFiles);
const graph = new Map(files.map((f) => [f, importsOf(f)]));

function findCycles(): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[][] = [];
  const visit = (node: string, stack: string[]) => {
    state.set(node, 'open');
    stack.push(node);
    for (const dep of graph.get(node) ?? []) {
      if (state.get(dep) === 'open') cycles.push([...stack.slice(stack.indexOf(dep)), dep]);
      else if (!state.has(dep)) visit(dep, stack);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const f of files) if (!state.has(f)) visit(f, []);
  return cycles;
}

describe('source layout', () => {
  it('reads the import graph (the check below is not vacuous)', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(graph.get(join('src', 'core', 'server.ts'))).toContain(
      join('src', 'core', 'responses', 'index.ts'),
    );
  });

  it('has no import cycles', () => {
    expect(findCycles().map((c) => c.join(' > '))).toEqual([]);
  });

  it('engine, store and common never import the core (every import points down)', () => {
    const upward = [...graph].flatMap(([file, deps]) =>
      /^src\/(engine|store|common)\//.test(file)
        ? deps.filter((d) => d.startsWith('src/core/')).map((d) => `${file} -> ${d}`)
        : [],
    );
    expect(upward).toEqual([]);
  });

  it('common imports nothing of the project, and the engines never import the store', () => {
    const bad = [...graph].flatMap(([file, deps]) => {
      if (file.startsWith('src/common/')) return deps.filter((d) => !d.startsWith('src/common/'));
      if (file.startsWith('src/engine/')) return deps.filter((d) => d.startsWith('src/store/'));
      return [];
    });
    expect(bad).toEqual([]);
  });

  it('an API surface of the core never imports another surface except through responses items', () => {
    const surfaces = ['chat', 'conversations', 'embeddings', 'models', 'responses'];
    const sideways = [...graph].flatMap(([file, deps]) => {
      const own = /^src\/core\/([^/]+)\//.exec(file)?.[1];
      if (!own || !surfaces.includes(own)) return [];
      return (
        deps
          .map((d) => /^src\/core\/([^/]+)\//.exec(d)?.[1])
          .filter((s): s is string => !!s && s !== own && surfaces.includes(s))
          // Conversation items are Responses items: conversations parse them with responses' parser.
          .filter((s) => !(own === 'conversations' && s === 'responses'))
          .map((s) => `${file} -> core/${s}`)
      );
    });
    expect(sideways).toEqual([]);
  });

  it('a create walks forward: request/ → run/ → persist/, none imports a later stage', () => {
    // The routes at responses/ itself hand each stage's value to the next (see responses/index.ts).
    const STAGES = ['request', 'run', 'persist'];
    const stage = (f: string) => {
      const rest = /^src\/core\/responses\/(.+)$/.exec(f)?.[1];
      if (rest === undefined) return null;
      const [top = '', ...below] = rest.split('/');
      return below.length === 0 ? STAGES.length : STAGES.indexOf(top);
    };
    const staged = [...graph].filter(([f]) => (stage(f) ?? -1) >= 0);
    expect(new Set(staged.map(([f]) => stage(f)))).toEqual(new Set([0, 1, 2, 3]));
    const backwards = staged.flatMap(([file, deps]) =>
      deps.filter((d) => (stage(d) ?? -1) > (stage(file) ?? 0)).map((d) => `${file} -> ${d}`),
    );
    expect(backwards).toEqual([]);
  });

  it('no folder holds more than 20 source files directly, and each src folder has its index', () => {
    const byFolder = new Map<string, number>();
    for (const f of files) byFolder.set(dirname(f), (byFolder.get(dirname(f)) ?? 0) + 1);
    const crowded = [...byFolder].filter(([, n]) => n > 20);
    expect(crowded).toEqual([]);
    const entryFolders = new Set(['src/worker', 'src/demo', 'src/vite', 'src/entries', 'sw']);
    const withoutIndex = [...byFolder.keys()].filter(
      (d) => !entryFolders.has(d) && !existsSync(join(ROOT, d, 'index.ts')),
    );
    expect(withoutIndex).toEqual([]);
  });

  it('keeps tests and test doubles out of src/ and sw/', () => {
    const misplaced = files.filter((f) => /\.test\.ts$|fake|fixture/i.test(relative('.', f)));
    expect(misplaced).toEqual([]);
  });
});
