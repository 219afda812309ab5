/**
 * `@mlc-ai/web-xgrammar` goes into lib/ as a chunk of its own instead of staying an import.
 *
 * Why: its build (one emscripten UMD file) has Node-only branches, `require('u' + 'rl')` and
 * `import('module')`, which esbuild and webpack try to resolve for the browser and fail on ("Could
 * not resolve 'url'"); only Vite stubs Node built-ins by itself. Bundled here with those two
 * expressions cut, it is a plain lazy chunk that every bundler copies as it is. The branches only
 * ever run in Node, where intab's engines get xgrammar handed in (`WebLLMEngine({ xgrammar })`).
 *
 * @example
 * import { BUNDLED, webXGrammarChunk } from './web-xgrammar-chunk.mjs';
 * rolldown({ external: (id) => !BUNDLED.includes(id), plugins: [webXGrammarChunk()] });
 */

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** Packages bundled into lib/ rather than imported (tests/unit/repo/dependencies.test.ts reads this list). */
export const BUNDLED = ['@mlc-ai/web-xgrammar'];

/** Node-only expressions of web-xgrammar 0.1.27, and what stands in for them in a browser build. */
const NODE_ONLY = [
  // Taken only where there is neither `document` nor `location`, i.e. in Node.
  ["require('u' + 'rl').pathToFileURL(__filename).href", 'undefined'],
  // Inside `if (ENVIRONMENT_IS_NODE)`.
  ["await import('module')", "await Promise.reject(new Error('intab bundles web-xgrammar for browsers'))"],
];

/**
 * The rolldown plugin that cuts the Node-only expressions. It fails the build when one is no longer
 * there, so a web-xgrammar update is looked at rather than shipped half-patched.
 */
export function webXGrammarChunk() {
  return {
    name: 'intab:web-xgrammar-chunk',
    transform(code, id) {
      if (!id.replaceAll('\\', '/').includes('/node_modules/@mlc-ai/web-xgrammar/')) return null;
      let out = code;
      for (const [node, browser] of NODE_ONLY) {
        if (!out.includes(node)) this.error(`${id} no longer contains ${node}: check its Node-only branches`);
        out = out.replaceAll(node, browser);
      }
      // An ES module, as in its package (`type: module`): its UMD wrapper then takes the global
      // branch and sets `globalThis.xgrammar`, which is what intab's loader reads, bundled or not.
      return { code: `${out}\nexport {};\n`, map: null };
    },
  };
}

/**
 * Writes the licence notice that ships with the bundled copy (web-xgrammar is Apache-2.0; its
 * package carries no licence file, so the terms come from spec/LICENSE, the same licence).
 */
export function writeWebXGrammarNotice({ root, out }) {
  const pkg = JSON.parse(
    readFileSync(resolve(root, 'node_modules/@mlc-ai/web-xgrammar/package.json'), 'utf8'),
  );
  const notice = [
    `lib/chunks/web-xgrammar-*.js is ${pkg.name} ${pkg.version} (${pkg.license}), from`,
    'https://github.com/mlc-ai/xgrammar, bundled by intab with its two Node-only expressions replaced',
    "(scripts/web-xgrammar-chunk.mjs in intab's repository). Its licence follows.",
    '',
    readFileSync(resolve(root, 'spec/LICENSE'), 'utf8'),
  ].join('\n');
  mkdirSync(resolve(out, 'licenses'), { recursive: true });
  writeFileSync(resolve(out, 'licenses/web-xgrammar.txt'), notice);
}

/** Whether a module id is (a file of) a bundled package. */
export function isBundled(id) {
  return BUNDLED.some((name) => id === name || id.startsWith(`${name}/`));
}
