/**
 * The client-executed tools of issue 45 (`shell` local, `apply_patch`, `local_shell`, `namespace`,
 * client `tool_search`): their request checks, the functions the model is shown for them, their
 * input items and how the history shows them to the model.
 *
 * @example
 * import { clientCallMap } from './client-tools';
 */

export { asFunctionHistory } from './client-history';
export { clientInputItems, storedClientItem } from './client-items';
export { findClientTool, isClientToolType, parseClientToolAt } from './client-tool-options';
export type { ClientTool } from './client-tool-parse';
export { type ClientCall, clientCallMap, clientSpecs } from './client-tool-specs';
