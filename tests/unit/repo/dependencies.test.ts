/**
 * The package declares what it imports. Every package that the code of intab's entries imports at
 * runtime must be a dependency or a peer dependency, or be bundled into lib/ by the build: a
 * devDependency is installed here but not in an app, whose bundler then fails on the import (as it
 * did for `@mlc-ai/web-xgrammar`). The examples catch that too, minutes into a run; this names the
 * import at once.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));

/** The package's entries, as scripts/build-lib.mjs builds them. */
const entries = [
  ...(
    readFileSync(resolve(root, 'scripts/build-lib.mjs'), 'utf8').match(/ENTRIES = \{([\s\S]*?)\};/)?.[1] ?? ''
  ).matchAll(/'((?:src|sw)\/[^']+\.ts)'/g),
].map((m) => resolve(root, m[1] ?? ''));

/** The packages the build bundles into lib/ instead of leaving them imports. */
const bundled = [
  ...(
    readFileSync(resolve(root, 'scripts/web-xgrammar-chunk.mjs'), 'utf8').match(
      /BUNDLED = \[([^\]]*)\]/,
    )?.[1] ?? ''
  ).matchAll(/'([^']+)'/g),
].map((m) => m[1] ?? '');

/** Runtime imports of a source file: no `import type`, no comments. */
function importsOf(code: string): string[] {
  const bare = code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const specs = [
    ...bare.matchAll(/^\s*(?:import|export)\s+(?!type\b)(?:[\s\S]*?\sfrom\s+)?'([^']+)'/gm),
    ...bare.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g),
  ];
  return specs.map((m) => m[1] ?? '');
}

/** The files the entries reach through relative imports, with the packages each imports. */
function shippedImports(): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const specs = importsOf(readFileSync(file, 'utf8'));
    seen.set(
      file,
      specs.filter((s) => !s.startsWith('.')),
    );
    for (const spec of specs.filter((s) => s.startsWith('.'))) {
      const base = resolve(dirname(file), spec);
      const next = [base, `${base}.ts`, resolve(base, 'index.ts')].find(
        (p) => p.endsWith('.ts') && existsSync(p),
      );
      if (next) visit(next);
    }
  };
  for (const entry of entries) visit(entry);
  return seen;
}

/** `@scope/name/sub/path` → `@scope/name`, `name/sub` → `name`. */
const packageOf = (spec: string) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');

describe('package.json', () => {
  it('finds the entries, the files they reach and the bundled packages', () => {
    // Eight entries (intab/catalog among them), and the Python sandbox worker intab/vite bundles (issue 26).
    expect(entries).toHaveLength(9);
    expect(bundled).toEqual(['@mlc-ai/web-xgrammar']);
    expect(shippedImports().size).toBeGreaterThan(50);
  });

  it('lists every package the shipped code imports as a dependency or a peer dependency, or bundles it', () => {
    const declared = new Set([
      ...Object.keys(pkg.dependencies),
      ...Object.keys(pkg.peerDependencies),
      ...bundled,
    ]);
    const missing: string[] = [];
    for (const [file, specs] of shippedImports()) {
      for (const spec of specs) {
        if (spec.startsWith('node:') || declared.has(packageOf(spec))) continue;
        missing.push(`${file.slice(root.length + 1)} imports ${spec}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('leaves what it bundles out of the dependencies, where apps would install it for nothing', () => {
    for (const name of bundled) expect(Object.keys(pkg.dependencies)).not.toContain(name);
  });

  it('states the Node versions it supports', () => {
    expect(pkg.engines.node).toMatch(/\d/);
  });
});
