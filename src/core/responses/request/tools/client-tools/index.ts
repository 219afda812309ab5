/**
 * The client-executed tools of issue 45 (`shell` local, `apply_patch`, `local_shell`, `namespace`,
 * client `tool_search`): their request checks, the functions the model is shown for them, their
 * input items and how the history shows them to the model. Their parse and specs load with the
 * first request that declares one (client-tool-load.ts).
 *
 * @example
 * import { clientCallMap } from './client-tools';
 */

export { asFunctionHistory } from './client-history';
export { clientInputItems, storedClientItem } from './client-items';
export { clientTools, loadClientToolsFor } from './client-tool-load';
export {
  type ClientCall,
  checkClientNames,
  clientCallMap,
  findClientTool,
  isClientToolType,
} from './client-tool-names';
export type { ClientTool } from './client-tool-parse';
