/**
 * What `intab/vite`'s plugins that build a script of their own after the app (the service worker,
 * the Python sandbox) share: where the app builds and whether its build went through, and the one
 * way they bundle an entry into one self-contained script.
 */
import { resolve } from 'node:path';
import { build, type LibraryOptions, type ResolvedConfig, type Rolldown } from 'vite';

/** The part of a plugin hook's `this` that says which build it runs in. */
interface HookContext {
  environment?: { name: string; config: { command: string } };
}

/**
 * The app's build as a plugin's hooks see it: `hooks` go into the plugin, `root` and `outDir` are
 * read once the config resolved, and `builtClient` says whether `closeBundle` follows a client build
 * that succeeded (Rolldown runs closeBundle after a failed build too, and once per environment).
 *
 * @example
 * const app = new AppBuild();
 * return { name, ...app.hooks, async closeBundle() { if (app.builtClient(this)) write(app.outDir); } };
 */
export class AppBuild {
  root = process.cwd();
  outDir = 'dist';
  private failed = false;

  readonly hooks = {
    configResolved: (config: ResolvedConfig): void => {
      this.root = config.root;
      this.outDir = resolve(config.root, config.build.outDir);
    },
    buildEnd: (error?: Error): void => {
      this.failed = Boolean(error);
    },
  };

  builtClient(hook: HookContext): boolean {
    return !this.failed && hook.environment?.config.command === 'build' && hook.environment.name === 'client';
  }
}

/**
 * Bundles `lib`'s entry into one script: written into `outDir` (a build), or only returned when
 * `outDir` is null (the dev server serves it). `define` replaces names in its code.
 *
 * @example
 * const code = await bundleScript(root, null, { entry, formats: ['es'], fileName: () => 'x.js' });
 */
export async function bundleScript(
  root: string,
  outDir: string | null,
  lib: LibraryOptions,
  define?: Record<string, string>,
): Promise<string> {
  const output = await build({
    configFile: false,
    root,
    logLevel: 'warn',
    publicDir: false,
    define,
    build: {
      outDir: outDir ?? 'dist',
      write: outDir !== null,
      emptyOutDir: false,
      copyPublicDir: false,
      target: 'es2022',
      lib,
    },
  });
  const first = (Array.isArray(output) ? output[0] : output) as Rolldown.RolldownOutput;
  return first.output[0].code;
}
