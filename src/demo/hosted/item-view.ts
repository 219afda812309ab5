/**
 * Picks the view for a hosted tool's finished output item; items the demo does not show (messages,
 * reasoning, function calls) give null.
 */
import type { ResponseOutputItem } from 'openai/resources/responses/responses';
import { codeInterpreterCallView } from './code-items';
import { fileSearchCallView } from './file-search';
import { mcpApprovalView, mcpCallView, mcpListToolsView } from './mcp-items';

/** What an item's view may ask of the chat: answering an approval request. */
export interface ItemActions {
  answerApproval(request: ResponseOutputItem.McpApprovalRequest, approve: boolean): boolean;
}

/**
 * @example
 * const view = hostedItemView(event.item, session);
 * if (view) reply.addHosted(view);
 */
export function hostedItemView(item: ResponseOutputItem, actions: ItemActions): HTMLElement | null {
  switch (item.type) {
    case 'file_search_call':
      return fileSearchCallView(item);
    case 'code_interpreter_call':
      return codeInterpreterCallView(item);
    case 'mcp_list_tools':
      return mcpListToolsView(item);
    case 'mcp_call':
      return mcpCallView(item);
    case 'mcp_approval_request':
      return mcpApprovalView(item, (approve) => actions.answerApproval(item, approve));
    default:
      return null;
  }
}
