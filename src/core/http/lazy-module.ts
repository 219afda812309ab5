import { serverError } from '../../common/api-error';
import { onceUntilFailed } from '../../common/lazy-module';

export { lazyModule } from '../../common/lazy-module';

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
