/**
 * The README's recipes are the examples' own code, which CI builds and runs from the packed tarball;
 * this keeps the two from drifting apart.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const readme = readFileSync(resolve(root, 'README.md'), 'utf8');
const example = (file: string) => readFileSync(resolve(root, 'examples', file), 'utf8').trimEnd();

describe('README recipes', () => {
  it.each([
    'vite-app/vite.config.ts',
    'vite-app/src/main.ts',
    'workbox-app/src/sw/sw.ts',
    'workbox-app/vite.config.ts',
    'esbuild-app/build.mjs',
    'esbuild-app/src/sw/sw.ts',
    'webpack-app/webpack.config.js',
    'sdk-app/src/agents.ts',
    'sdk-app/src/ai-sdk.ts',
    'sdk-app/src/hosted-tools.ts',
    'vite-app/test/answer.test.mjs',
  ])('shows examples/%s as it is', (file) => {
    expect(readme).toContain(example(file));
  });

  it.each([
    ['esbuild-app/src/main.ts', "startIntab({ swUrl: '/sw.js', workerUrl: '/engine-worker.js' })"],
    ['webpack-app/src/main.js', "startIntab({ swUrl: '/sw.js' })"],
  ])('names the start-up line of examples/%s as it is', (file, line) => {
    expect(example(file)).toContain(line);
    expect(readme).toContain(line);
  });

  it('shows the webpack service worker, which is the esbuild one minus its types', () => {
    const types =
      /^\/\/\/ <reference lib="webworker" \/>\n|\ndeclare const self: ServiceWorkerGlobalScope;\n/g;
    expect(example('webpack-app/src/sw.js')).toBe(example('esbuild-app/src/sw/sw.ts').replace(types, ''));
  });

  it('lists one example per recipe, each of them tested', () => {
    for (const name of ['vite-app', 'workbox-app', 'esbuild-app', 'webpack-app', 'sdk-app']) {
      expect(readme).toContain(`examples/${name}`);
      expect(readFileSync(resolve(root, 'tests/examples', `${name}.test.ts`), 'utf8')).toContain(
        `installExample('${name}')`,
      );
    }
  });
});
