/**
 * The repository stands alone: a clone in an empty folder has everything its tests and docs use.
 * Nothing may read or link a path outside the checkout (a sibling `shared/` folder, the author's
 * machine), which worked on one machine and failed for every newcomer. `.ci/run` proves the same
 * thing end to end by testing a fresh clone; this test names the offending line.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findEscapes, isInside } from '../../helpers/repo-paths';

const root = resolve(import.meta.dirname, '../../..');

/** Tracked files and new ones not ignored yet, so a check passes before the commit as after it. */
const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
  cwd: root,
  encoding: 'utf8',
})
  .split('\0')
  .filter((f) => f && existsSync(resolve(root, f)));

/**
 * Generated files the repo commits as built (the emscripten glue of issues 34 and 42, checked against
 * their manifests by tests/unit/wllama/simd-manifest.test.ts): the home folder they name is
 * emscripten's in-memory file system, not a machine path.
 */
const SIMD_DIRS = ['wasm/simd', 'wasm/simd-st'];
const generated = new Set(
  SIMD_DIRS.flatMap((dir) =>
    Object.keys(JSON.parse(readFileSync(resolve(root, dir, 'manifest.json'), 'utf8')).outputs).map(
      (name) => `${dir}/${name}`,
    ),
  ),
);

/** Text files only; a NUL byte marks a binary one. */
const texts = files.flatMap((file) => {
  if (generated.has(file)) return [];
  const text = readFileSync(resolve(root, file), 'utf8');
  return text.includes('\0') ? [] : [{ file, text }];
});

describe('the repository stands alone', () => {
  it('has files to check (git lists the checkout)', () => {
    expect(texts.map((t) => t.file)).toContain('README.md');
    expect(texts.map((t) => t.file)).toContain('spec/openresponses.openapi.json');
  });

  it('no file reads or names a path outside the checkout', () => {
    const escapes = texts.flatMap(({ file, text }) => findEscapes(root, file, text));
    expect(escapes).toEqual([]);
  });

  it('every relative Markdown link points at a file in the checkout', () => {
    const broken: string[] = [];
    for (const { file, text } of texts.filter((t) => t.file.endsWith('.md'))) {
      for (const [, target = ''] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^([a-z]+:|#)/i.test(target)) continue; // a URL or an anchor
        const path = resolve(root, dirname(file), target.split('#')[0] ?? '');
        if (!isInside(root, path) || !existsSync(path)) broken.push(`${file}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('vendors the Open Responses spec with its source and licence', () => {
    const note = readFileSync(resolve(root, 'spec/README.md'), 'utf8');
    expect(note).toMatch(/openresponses\/openresponses/);
    expect(note).toMatch(/commit `[0-9a-f]{40}`/);
    expect(readFileSync(resolve(root, 'spec/LICENSE'), 'utf8')).toMatch(/Apache License\s+Version 2\.0/);
    const spec = JSON.parse(readFileSync(resolve(root, 'spec/openresponses.openapi.json'), 'utf8'));
    expect(spec.info.title).toBe('Open Responses');
  });
});

describe('findEscapes (the check above)', () => {
  const fake = resolve(sep, 'repo');
  it('flags a relative path that climbs out of the checkout, and a sibling shared folder', () => {
    const up = ['..', '..', '..', 'shared', 'spec', 'x.json'].join('/');
    expect(findEscapes(fake, 'tests/helpers/spec.ts', `resolve(here, '${up}')`)).toHaveLength(1);
    expect(findEscapes(fake, 'README.md', `see ${['..', 'shared', 'DESIGN.md'].join('/')}`)).toHaveLength(1);
  });

  it('accepts paths that stay inside', () => {
    const up = ['..', '..', '..', 'src', 'core'].join('/');
    expect(findEscapes(fake, 'tests/unit/sw/a.test.ts', `import x from '${up}';`)).toEqual([]);
    expect(findEscapes(fake, 'tests/examples/a.ts', "resolve(import.meta.dirname, '../..')")).toEqual([]);
    expect(findEscapes(fake, 'tests/chromium.json', '"executablePath": "/usr/bin/chromium"')).toEqual([]);
  });
});
