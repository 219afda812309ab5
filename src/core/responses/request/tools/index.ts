/**
 * A create's `tools` and `tool_choice` read into plans: function tools, the hosted ones
 * (`file_search`, `code_interpreter`) and remote MCP servers with their approvals and history.
 *
 * @example
 * import { parseTools } from './tools';
 */

export { planCodeInterpreter } from './code-interpreter-tool';
export { planHosted } from './hosted-tools';
export { planMcp } from './mcp-plan';
export { parseToolChoice, parseTools } from './tool-options';
