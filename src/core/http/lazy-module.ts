import { clip, serverError, serviceUnavailable } from '../../common/api-error';

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
  let pending: Promise<T> | null = null;
  return () => {
    pending ??= load().catch((err: unknown) => {
      pending = null;
      const reason = err instanceof Error ? err.message : String(err);
      throw serviceUnavailable(
        `intab could not load its ${what} code: ${clip(reason)}`,
        'module_unavailable',
      );
    });
    return pending;
  };
}

type Handler = (request: Request, url: URL, params: Record<string, string>) => Promise<Response>;
type Route = { path: string; methods: Record<string, Handler> };

/**
 * Routes whose table is built by code loaded on first use: `shape` names each path and its methods
 * (so that the router tells a 404 from a 405 without loading anything), and `load` builds the real
 * table once, when a request first reaches one of them. A path or method `shape` names that the
 * loaded table lacks is a bug, answered as a 500.
 *
 * @example
 * routes.push(...lazyRoutes({ '/containers': ['GET', 'POST'] }, async () => (await mod()).containerRoutes(reg, deps)));
 */
export function lazyRoutes(shape: Record<string, readonly string[]>, load: () => Promise<Route[]>): Route[] {
  let table: Promise<Route[]> | null = null;
  const loaded = () => {
    table ??= load().catch((err: unknown) => {
      table = null;
      throw err;
    });
    return table;
  };
  return Object.entries(shape).map(([path, methods]) => ({
    path,
    methods: Object.fromEntries(
      methods.map((method): [string, Handler] => [
        method,
        async (request, url, params) => {
          const handler = (await loaded()).find((r) => r.path === path)?.methods[method];
          if (!handler) throw serverError(`No handler for ${method} ${path}.`);
          return handler(request, url, params);
        },
      ]),
    ),
  }));
}
