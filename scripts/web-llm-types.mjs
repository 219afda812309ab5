/**
 * Makes lib/types name web-llm's types through a copy of the few web-llm declaration files that
 * hold them (its config, its engine types and its OpenAI-style protocol), instead of through
 * `@mlc-ai/web-llm` itself.
 *
 * Why: web-llm's own entry declarations do not compile in an app with `skipLibCheck: false` (they
 * import `@mlc-ai/web-runtime`, `@mlc-ai/web-tokenizers` and `@mlc-ai/web-xgrammar`, which it does
 * not depend on, and use `chrome.*` and service-worker globals), and every app that imports intab's
 * types would inherit those errors. The copied files are web-llm's own, unchanged but for the one
 * import of `@mlc-ai/web-xgrammar`, so an app's web-llm values still fit intab's options.
 *
 * @example
 * import { vendorWebLlmTypes } from './web-llm-types.mjs';
 * vendorWebLlmTypes({ root, types: resolve(root, 'lib/types') });
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** web-llm's type-only modules (no runtime classes, no cache or worker code) that intab's declarations use. */
const MODULES = ['config', 'types', 'integrity', 'openai_api_protocols/index'];

/** The one foreign import in those files, and what it stands for (web-xgrammar's union is objects or a string). */
const XGRAMMAR_IMPORT = 'import type { StructuralTagLike } from "@mlc-ai/web-xgrammar";';
const XGRAMMAR_STANDIN =
  '/** In web-xgrammar (which web-llm bundles but does not depend on): a structural tag object or its JSON. */\n' +
  'type StructuralTagLike = object | string;';

/** Relative module specifiers in a declaration file. */
const importsOf = (text) => [...text.matchAll(/from\s+["'](\.{1,2}\/[^"']+)["']/g)].map((m) => m[1]);

/**
 * Copies the web-llm declarations into `types/web-llm/` and points every `@mlc-ai/web-llm` import in
 * `types` at them. Throws when web-llm's files import something new, so a web-llm update that would
 * break consumers' types fails the build instead.
 */
export function vendorWebLlmTypes({ root, types }) {
  const source = resolve(root, 'node_modules/@mlc-ai/web-llm/lib');
  const dest = resolve(types, 'web-llm');
  const files = new Set();
  const visit = (module) => {
    const file = `${module}.d.ts`;
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(resolve(source, file), 'utf8');
    for (const spec of importsOf(text)) {
      const target = join(dirname(module), spec).replace(/\.js$/, '');
      visit(statIsDir(resolve(source, target)) ? `${target}/index` : target);
    }
    const bare = [...text.matchAll(/from\s+["']([^."'][^"']*)["']/g)].map((m) => m[1]);
    const unexpected = bare.filter((b) => b !== '@mlc-ai/web-xgrammar');
    if (unexpected.length > 0) throw new Error(`web-llm's ${file} now imports ${unexpected.join(', ')}`);
  };
  for (const module of MODULES) visit(module);

  for (const file of files) {
    const text = readFileSync(resolve(source, file), 'utf8')
      .replace(XGRAMMAR_IMPORT, XGRAMMAR_STANDIN)
      .replace(/^\/\/# sourceMappingURL=.*$/m, '');
    if (text.includes('@mlc-ai/web-xgrammar')) throw new Error(`web-llm's ${file} imports web-xgrammar anew`);
    mkdirSync(dirname(resolve(dest, file)), { recursive: true });
    writeFileSync(resolve(dest, file), text);
  }
  cpSync(resolve(source, '../LICENSE'), resolve(dest, 'LICENSE'));

  // web-llm's own index, limited to the lines that re-export the copied modules.
  const index = readFileSync(resolve(source, 'index.d.ts'), 'utf8')
    .split(/(?<=;)\n/)
    .filter((stmt) => MODULES.some((m) => stmt.includes(`from "./${m}"`)))
    .join('\n');
  writeFileSync(
    resolve(dest, 'index.d.ts'),
    `// The type-only part of @mlc-ai/web-llm's declarations (see scripts/web-llm-types.mjs).\n${index}\n`,
  );

  let rewritten = 0;
  for (const file of declarationFiles(types)) {
    if (file.startsWith(dest)) continue;
    const text = readFileSync(file, 'utf8');
    if (!text.includes('@mlc-ai/web-llm')) continue;
    const rel = relative(dirname(file), resolve(dest, 'index')).replaceAll('\\', '/');
    writeFileSync(
      file,
      text.replace(/(["'])@mlc-ai\/web-llm\1/g, `'${rel.startsWith('.') ? rel : `./${rel}`}'`),
    );
    rewritten++;
  }
  return { copied: files.size, rewritten };
}

function statIsDir(path) {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function declarationFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = resolve(dir, entry.name);
    if (entry.isDirectory()) return declarationFiles(path);
    return path.endsWith('.d.ts') ? [path] : [];
  });
}
