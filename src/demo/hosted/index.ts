/**
 * The demo's hosted tools: the panel that turns them on, and the views of their output items, all
 * built from untrusted text with `textContent` only.
 */
export { citedFiles, fileSearchCallView } from './file-search';
export { safeImageUrl } from './image-url';
export { hostedItemView, type ItemActions } from './item-view';
export { createToolsForm, DEMO_MCP_LABEL, type HostedTools, type ToolsForm } from './tools-form';
