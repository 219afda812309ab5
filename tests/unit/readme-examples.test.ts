/**
 * The README's quick start for an existing app is the examples' own code, which CI builds and runs
 * from the packed tarball; this keeps the two from drifting apart.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const readme = readFileSync(resolve(root, 'README.md'), 'utf8');

describe('README quick start', () => {
  it.each([
    'vite-app/vite.config.ts',
    'vite-app/src/main.ts',
    'workbox-app/src/sw.ts',
    'vite-app/test/answer.test.mjs',
  ])('shows examples/%s as it is', (file) => {
    const code = readFileSync(resolve(root, 'examples', file), 'utf8').trimEnd();
    expect(readme).toContain(code);
  });
});
