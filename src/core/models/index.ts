/**
 * The Models surface (`/v1/models`, `/v1/models/{id}`).
 *
 * @example
 * import { getModel, listModels } from './models';
 */
export { getModel, listModels } from './model-routes';
