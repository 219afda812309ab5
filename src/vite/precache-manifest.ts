/**
 * The precache manifest `intab/vite` writes into its service worker (`self.__WB_MANIFEST`, workbox's
 * name, so an entry built on workbox-precaching reads it too): every file of the build but the
 * service worker itself and intab's lazy assets (`LAZY_ASSET_GLOBS`), with a content revision for
 * every name that carries no hash of the bundler's (a file copied from `public/assets/` is one). Done here rather than with workbox-build, so an app needs no extra
 * package to work offline.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { LAZY_ASSET_GLOBS, lazyAssetKind } from '../common/lazy-assets.ts';

/** One precached file, as workbox-precaching takes it. */
export interface ManifestEntry {
  url: string;
  revision: string | null;
}

/** What the manifest holds and what it left out, for the build's log. */
export interface PrecacheManifest {
  entries: ManifestEntry[];
  bytes: number;
  /** Files over {@link MAX_PRECACHED_FILE_BYTES} (never fetched at install: too big for every first visit). */
  tooBig: string[];
}

/** A file larger than this is left out of the precache (with a warning), as workbox does at 2 MB. */
export const MAX_PRECACHED_FILE_BYTES = 4 * 1024 * 1024;
/** The kinds of file an app's shell is made of; anything else (a model, a video) is for the app to cache. */
const SHELL_FILE = /\.(?:html|m?js|css|json|webmanifest|svg|png|jpe?g|webp|gif|ico|woff2?|wasm)$/;
/**
 * A name the bundler gave a content hash (`[name]-[hash].[ext]`: 8 or more base64url letters, one
 * at least a capital, a digit or `_`, so that `my-component.js` is no hash). A hash that misses this
 * only gets a revision it did not need.
 */
const HASHED_NAME = /[-.](?=[\w-]*[A-Z0-9_])[\w-]{8,}\.[a-z0-9]+$/;
/** Walking the build stops past this many files: a build folder is not a disk. */
const MAX_FILES = 20_000;

/** A glob (`*` within a name, `**` across folders) as a regular expression over a relative path. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*' && glob[i + 1] === '*') {
      re += '.*';
      i++;
    } else if (c === '*') re += '[^/]*';
    else re += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/**
 * Lists `outDir`'s files for the precache. `emitted`: the names the bundler wrote (the build's
 * bundle); only those of them with a hash in their name go without a revision, as a copied file's
 * name stays the same when its content changes.
 *
 * @example
 * const { entries } = precacheManifest('dist', ['sw.js'], new Set(Object.keys(bundle)));
 */
export function precacheManifest(
  outDir: string,
  ignore: readonly string[],
  emitted: ReadonlySet<string> = new Set(),
): PrecacheManifest {
  const left = [...ignore, ...LAZY_ASSET_GLOBS].map(globToRegExp);
  const entries: ManifestEntry[] = [];
  const tooBig: string[] = [];
  let bytes = 0;
  for (const file of listFiles(outDir)) {
    const url = relative(outDir, file).split(sep).join('/');
    if (!SHELL_FILE.test(url) || left.some((re) => re.test(url))) continue;
    const size = statSync(file).size;
    if (size > MAX_PRECACHED_FILE_BYTES) {
      tooBig.push(url);
      continue;
    }
    bytes += size;
    // The bundler's hashed names are their own revision; any other name gets its content's.
    const revision =
      emitted.has(url) && HASHED_NAME.test(url)
        ? null
        : createHash('md5').update(readFileSync(file)).digest('hex');
    entries.push({ url, revision });
  }
  entries.sort((a, b) => (a.url < b.url ? -1 : 1));
  return { entries, bytes, tooBig };
}

/**
 * The byte sizes of the build's hashed lazy assets (`assets/pdfjs-….js`: …), which intab's runtime
 * cache checks a response against before it keeps it under that name for good.
 *
 * @example
 * lazyAssetSizes('dist'); // { 'assets/pdfjs-CQQcCew4.js': 402113, … }
 */
export function lazyAssetSizes(outDir: string): Record<string, number> {
  const sizes: Record<string, number> = {};
  const assets = join(outDir, 'assets');
  if (!existsSync(assets)) return sizes;
  for (const e of readdirSync(assets, { withFileTypes: true }))
    if (e.isFile() && lazyAssetKind(`/assets/${e.name}`) === 'hashed')
      sizes[`assets/${e.name}`] = statSync(join(assets, e.name)).size;
  return sizes;
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (out.length >= MAX_FILES)
        throw new Error(`intab: more than ${MAX_FILES} files in ${dir} to precache`);
      const path = join(d, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.isFile()) out.push(path);
    }
  };
  walk(dir);
  return out;
}
