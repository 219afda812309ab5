/**
 * `/v1/containers`: the containers `code_interpreter` runs in (one Python sandbox each, with its
 * files), their routes, and the registry that is also the tool loop's `PythonBackend`.
 *
 * @example
 * const containers = new ContainerRegistry(runner);
 * routes.push(...containerRoutes(containers, { maxBodyBytes }));
 */

export * from './container-files';
export * from './registry';
export * from './routes';
