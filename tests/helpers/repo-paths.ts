/**
 * Finds paths in a file's text that lead out of the repository: relative paths that climb above the
 * checkout (read from the file's own folder, as imports, `resolve(here, …)` and Markdown links are)
 * and absolute paths into someone's machine. Used by tests/unit/repo/standalone.test.ts.
 *
 * @example
 * findEscapes('/repo', 'README.md', 'see ../elsewhere/DESIGN.md'); // → ['README.md:1: ../elsewhere/DESIGN.md']
 */
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

/** A run of `../` steps and what follows up to a quote, a bracket or a space. */
const RELATIVE = /(?:\.\.\/)+[^\s'"`)\]>,;]*|(?:\.\.\/)*\.\.(?=['"`])/g;
/** Home and work folders: paths that exist on one machine only. */
const MACHINE = /(?:^|[\s'"`(=])((?:\/work|\/home|\/Users|\/root)\/[^\s'"`)]*)/g;

/** Whether `path` is `root` or inside it. */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** `file:line: path` for every path in `text` (the contents of `file`, relative to `root`) that leaves it. */
export function findEscapes(root: string, file: string, text: string): string[] {
  const found: string[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    for (const [path] of line.matchAll(RELATIVE)) {
      if (!isInside(root, resolve(root, dirname(file), path))) found.push(`${file}:${i + 1}: ${path}`);
    }
    for (const [, path] of line.matchAll(MACHINE)) found.push(`${file}:${i + 1}: ${path}`);
  });
  return found;
}
