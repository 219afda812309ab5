/**
 * `/v1/containers`' paths and methods: the router knows them before the code that answers them
 * (containers/routes.ts, loaded on first use) is there, so a 404 or 405 loads nothing. routes.ts
 * builds its handlers as a `RouteTable` of this shape, so the two cannot drift apart.
 */
export const CONTAINER_ROUTES = {
  '/containers': ['POST', 'GET'],
  '/containers/:id': ['GET', 'DELETE'],
  '/containers/:id/files': ['POST', 'GET'],
  '/containers/:id/files/:file': ['GET', 'DELETE'],
  '/containers/:id/files/:file/content': ['GET'],
} as const;
