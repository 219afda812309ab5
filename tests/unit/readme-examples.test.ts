/**
 * The recipes are the examples' own code, which CI installs from the packed tarball, builds and runs
 * (tests/examples/): every code block of README.md and docs/recipes.md is one file of an example,
 * whole, named by the link on the line before it, or, for a shell block, commands that the example's
 * test runs. So no recipe can drift from what CI runs. The docs' links resolve, anchors included.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchors, type CodeBlock, codeBlocks, isExternal, links } from '../helpers/markdown';

const root = resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(resolve(root, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as { name: string; version: string };
const tarball = `./${pkg.name}-${pkg.version}.tgz`;

/** The pages whose code blocks are recipes. */
const RECIPE_PAGES = ['README.md', 'docs/recipes.md'];
/** Every page of the documentation, for the link check. */
const DOC_PAGES = [
  'README.md',
  'CONTRIBUTING.md',
  'CHANGELOG.md',
  ...readdirSync(resolve(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const EXAMPLES = readdirSync(resolve(root, 'examples')).filter((name) =>
  statSync(resolve(root, 'examples', name)).isDirectory(),
);

/** The repository path (`examples/<app>/…`) the caption of `block` on `page` links to, if any. */
function shownPath(page: string, block: CodeBlock): string | null {
  const target = links(block.caption)
    .filter((t) => !isExternal(t))
    .map((t) => relative(root, resolve(root, dirname(page), t.split('#')[0] ?? '')))
    .find((path) => path.startsWith('examples/'));
  return target ?? null;
}

/**
 * The commands a shell block may hold for an example: each one something the example's own test
 * does (tests/examples/<app>.test.ts), with the example's own scripts and dependencies.
 */
function commandsCiRuns(app: string): Set<string> {
  const test = read(`tests/examples/${app}.test.ts`);
  const appPkg = JSON.parse(read(`examples/${app}/package.json`)) as {
    scripts?: Record<string, string>;
    dependencies?: Record<string, string>;
  };
  const ok = new Set<string>();
  if (test.includes(`installExample('${app}')`)) {
    ok.add(`npm install ${tarball}`);
    for (const dep of Object.keys(appPkg.dependencies ?? {})) {
      if (dep !== pkg.name) ok.add(`npm install ${tarball} ${dep}`);
    }
  }
  for (const [script, command] of Object.entries(appPkg.scripts ?? {})) {
    if (!test.includes(`runScript(dir, '${script}')`)) continue;
    ok.add(script === 'test' ? 'npm test' : `npm run ${script}`);
    if (command === 'vite build') ok.add('npx vite build');
  }
  if (test.includes(`serveVite(dir, 'dev')`)) ok.add('npx vite');
  if (test.includes(`serveVite(dir, 'preview')`)) ok.add('npx vite preview');
  return ok;
}

/**
 * The repository's own set-up (the README's quick start, in a clone of intab): `.ci/run` runs
 * `npm ci` and `npm test` in a fresh clone, and `npm start` is the demo's script.
 */
const REPO_COMMANDS = new Set(
  ['npm ci', 'npm test', 'npm start'].filter((c) =>
    c === 'npm start'
      ? Boolean(JSON.parse(read('package.json')).scripts?.start)
      : read('.ci/run').includes(c),
  ),
);

/** The commands of a shell block: one a line, `&&` chains split, comments dropped. */
function commands(text: string): string[] {
  return text
    .split('\n')
    .flatMap((line) => (line.replace(/\s#.*$/, '').split('&&') ?? []).map((c) => c.trim()))
    .filter(Boolean);
}

/** Every file of examples/<app> but its own tests, folders of installed or built files skipped. */
function appFiles(dir: string): string[] {
  return readdirSync(resolve(root, dir), { withFileTypes: true }).flatMap((entry) => {
    if (['node_modules', 'dist', 'test'].includes(entry.name)) return [];
    const path = `${dir}/${entry.name}`;
    return entry.isDirectory() ? appFiles(path) : [path];
  });
}

describe.each(RECIPE_PAGES)('the recipes of %s', (page) => {
  const blocks = codeBlocks(read(page));

  it('have code blocks', () => {
    expect(blocks.length).toBeGreaterThan(0);
  });

  it.each(blocks.map((b) => [b.line, b] as const))(
    'block at line %i is a file of an example, whole, or commands its test runs',
    (line, block) => {
      const path = shownPath(page, block);
      if (block.lang === 'sh') {
        const app = path?.split('/')[1];
        const ok = app ? commandsCiRuns(app) : REPO_COMMANDS;
        for (const command of commands(block.text)) {
          expect(
            ok,
            `${page}:${line}: \`${command}\` is not something CI runs for ${app ?? 'the repository'}`,
          ).toContain(command);
        }
        return;
      }
      expect(
        path,
        `${page}:${line}: the line before the block must link to the example file it shows`,
      ).not.toBe(null);
      if (!path) return;
      expect(existsSync(resolve(root, path)) && statSync(resolve(root, path)).isFile(), path).toBe(true);
      expect(block.text, `${page}:${line} differs from ${path}`).toBe(read(path).trimEnd());
    },
  );
});

describe('the README', () => {
  const readme = read('README.md');
  const shown = new Set(codeBlocks(readme).map((b) => shownPath('README.md', b)));

  it('shows every file of its recipe, the HTML included', () => {
    for (const file of appFiles('examples/vite-app')) expect(shown, file).toContain(file);
  });

  it('says first how to install intab from the packed tarball', () => {
    const recipe = readme.split(/^## Use it in your app/m)[1] ?? '';
    const firstParagraph = recipe.split('\n\n')[1] ?? '';
    expect(firstParagraph).toContain('npm pack');
    expect(firstParagraph).toContain(`npm install ${tarball} openai`);
  });

  it('keeps the two setup commands that CI and newcomers rely on', () => {
    expect(readme).toMatch(/^npm ci && npm start\b/m);
    expect(readme).toMatch(/^npm ci && npm test\b/m);
    expect(read('.ci/run')).toContain('npm ci --no-audit --no-fund && npm test');
  });

  it('is at most 300 lines, none over 200 characters', () => {
    const lines = readme.split('\n');
    expect(lines.length).toBeLessThanOrEqual(300);
    expect(lines.filter((l) => [...l].length > 200)).toEqual([]);
  });

  it('links every page of docs/', () => {
    for (const page of DOC_PAGES.filter((p) => p.startsWith('docs/'))) {
      expect(links(readme), page).toContain(page);
    }
  });
});

describe('the examples', () => {
  const recipes = RECIPE_PAGES.map(read).join('\n');

  it.each(EXAMPLES)('examples/%s is a recipe, and CI installs, builds and runs it', (name) => {
    expect(recipes).toContain(`examples/${name}`);
    expect(read(`tests/examples/${name}.test.ts`)).toContain(`installExample('${name}')`);
  });

  it('shows the webpack service worker, which is the esbuild one minus its types', () => {
    const types =
      /^\/\/\/ <reference lib="webworker" \/>\n|\ndeclare const self: ServiceWorkerGlobalScope;\n/g;
    expect(read('examples/webpack-app/src/sw.js')).toBe(
      read('examples/esbuild-app/src/sw/sw.ts').replace(types, ''),
    );
  });
});

describe('the links of the documentation', () => {
  it.each(DOC_PAGES)('every relative link of %s resolves, its #anchor to a heading', (page) => {
    const broken: string[] = [];
    for (const target of links(read(page))) {
      if (isExternal(target)) continue;
      const [path = '', anchor] = target.split('#');
      const file = path ? join(dirname(page), path) : page;
      if (!existsSync(resolve(root, file))) {
        broken.push(`${target}: no such file`);
        continue;
      }
      if (anchor && file.endsWith('.md') && !anchors(read(file)).has(anchor)) {
        broken.push(`${target}: no heading #${anchor} in ${file}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
