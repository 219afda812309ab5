import { clip, invalidRequest } from '../../common/api-error';

/**
 * What a container may hold, and where its files may go (issue 38 §3.3, §3.7). Containers live in
 * the engine worker every tab shares, so their bytes are bounded per container and in all; a file's
 * name is a path under `/mnt/data` and nothing else: no `..`, and no file where another file's folder
 * is (`a.txt`, then `a.txt/b.txt`), which the sandbox could never write.
 */
export const CONTAINER_BUDGETS = {
  /** Containers kept at once. */
  maxContainers: 64,
  /** Files per container. */
  maxFiles: 256,
  /** Bytes of files one container holds (uploads and what its code wrote). */
  maxBytesPerContainer: 128 * 1024 * 1024,
  /** Bytes of files all containers hold together. */
  maxBytesTotal: 256 * 1024 * 1024,
  /** Characters of a file's path under `/mnt/data`, and folders deep. */
  maxPathChars: 1024,
  maxPathDepth: 32,
} as const;

/**
 * A file name as its path relative to `/mnt/data` (a leading `/mnt/data/` or `/` dropped, empty and
 * `.` segments dropped), or a 400 on `param` for one that would leave it or cannot be a file there.
 *
 * @example
 * dataPath('/mnt/data/./in/a.csv', 'file') // → 'in/a.csv'
 * dataPath('../../tmp/pwned.txt', 'file') // throws a 400
 */
export function dataPath(name: string, param: string): string {
  const parts = name
    .replace(/^\/mnt\/data(\/|$)/, '')
    .split('/')
    .filter((p) => p !== '' && p !== '.');
  const bad = (why: string) =>
    invalidRequest(
      param,
      `The file name '${clip(name)}' ${why}: give a path inside /mnt/data.`,
      'invalid_value',
    );
  if (parts.length === 0) throw bad('names no file');
  if (parts.includes('..')) throw bad("leaves /mnt/data ('..')");
  if (/[\0\\]/.test(name)) throw bad('holds a NUL or a backslash');
  const path = parts.join('/');
  if (path.length > CONTAINER_BUDGETS.maxPathChars || parts.length > CONTAINER_BUDGETS.maxPathDepth)
    throw bad(
      `is longer than ${CONTAINER_BUDGETS.maxPathChars} characters or ${CONTAINER_BUDGETS.maxPathDepth} folders`,
    );
  return path;
}

/**
 * The path among `paths` (absolute, under `/mnt/data/`) that `path` cannot live beside: a file where
 * `path` needs a folder, or a file under `path` as a folder; null when none.
 *
 * @example
 * clashWith('/mnt/data/a.txt/b.txt', ['/mnt/data/a.txt']) // → '/mnt/data/a.txt'
 */
export function clashWith(path: string, paths: Iterable<string>): string | null {
  for (const other of paths) if (other.startsWith(`${path}/`) || path.startsWith(`${other}/`)) return other;
  return null;
}
