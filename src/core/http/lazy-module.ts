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
function onceUntilFailed<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | null = null;
  return () => {
    pending ??= load().catch((err: unknown) => {
      pending = null;
      throw err;
    });
    return pending;
  };
}

export type Handler = (request: Request, url: URL, params: Record<string, string>) => Promise<Response>;
export type Route = { path: string; methods: Record<string, Handler> };

/** The paths of some routes, each with its methods, as {@link lazyRoutes} takes them. */
export type RouteShape = Readonly<Record<string, readonly string[]>>;

/**
 * A handler for each path and method of `S`, neither more nor fewer: the compiler holds the code
 * that answers lazy routes to the shape the router was given up front.
 */
export type RouteTable<S extends RouteShape> = { [P in keyof S]: { [M in S[P][number]]: Handler } };

/** A {@link RouteTable} as the router's list of routes. */
export function routesOf<S extends RouteShape>(table: RouteTable<S>): Route[] {
  return Object.entries(table).map(([path, methods]) => ({
    path,
    methods: methods as Record<string, Handler>,
  }));
}

/**
 * Routes whose table is built by code loaded on first use: `shape` names each path and its methods
 * (so that the router tells a 404 from a 405 without loading anything), and `load` builds the real
 * table once, when a request first reaches one of them. A path or method `shape` names that the
 * loaded table lacks is a bug, answered as a 500.
 *
 * @example
 * routes.push(...lazyRoutes({ '/containers': ['GET', 'POST'] }, async () => (await mod()).containerRoutes(reg, deps)));
 */
export function lazyRoutes(shape: RouteShape, load: () => Promise<Route[]>): Route[] {
  const loaded = onceUntilFailed(load);
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
