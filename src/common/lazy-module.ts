import { clip, serviceUnavailable } from './api-error';

/**
 * A module loaded on first use (`import()`), once: code that only some requests need (the Files and
 * Vector Stores APIs, chat completions, containers…) stays out of the engine worker's first chunk, as
 * pdf.js and o200k do. A load that fails (a chunk the network or a stale cache could not give) is an
 * OpenAI-shaped 503 for the request that asked, never a hang, and is not remembered: the next request
 * tries again.
 *
 * @example
 * const chat = lazyModule('chat completions', () => import('../chat'));
 * const res = await (await chat()).createChatCompletion(request, deps);
 */
export function lazyModule<T>(what: string, load: () => Promise<T>): () => Promise<T> {
  return onceUntilFailed(() =>
    load().catch((err: unknown) => {
      const reason = err instanceof Error ? err.message : String(err);
      throw serviceUnavailable(
        `intab could not load its ${what} code: ${clip(reason)}`,
        'module_unavailable',
      );
    }),
  );
}

/** `load`'s promise, shared by every caller once made; a rejected one is forgotten, so the next call tries again. */
export function onceUntilFailed<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | null = null;
  return () => {
    pending ??= load().catch((err: unknown) => {
      pending = null;
      throw err;
    });
    return pending;
  };
}

/** A {@link lazyModule} that synchronous code reads once a route has awaited `load()`. */
export type Preloaded<T> = { load: () => Promise<T>; get: () => T };

/**
 * A module loaded on first use whose functions synchronous code calls (a parse, a conversion): the
 * route awaits `load()` before that code runs, and `get()` then hands it over without waiting. A
 * `get()` before any load is a bug, thrown as such.
 *
 * @example
 * const grammars = preloaded('custom tool grammar', () => import('./converters'));
 * await grammars.load(); // in the route
 * grammars.get().regexInputPattern('\\d+'); // in the parse
 */
export function preloaded<T>(what: string, load: () => Promise<T>): Preloaded<T> {
  const once = lazyModule(what, load);
  let loaded: T | null = null;
  return {
    load: async () => {
      loaded ??= await once();
      return loaded;
    },
    get: () => {
      if (loaded === null) throw new Error(`intab's ${what} code was used before it was loaded.`);
      return loaded;
    },
  };
}
