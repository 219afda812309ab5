import type { ResponseItem } from 'openai/resources/responses/responses';
import { clip, invalidRequest } from '../../../../common/api-error';

/**
 * The `mcp` approval flow across requests. A response that ends with an `mcp_approval_request`
 * waits for the next request (by `previous_response_id`, a conversation, or its items replayed) to
 * carry an `mcp_approval_response` for it: approved, the call runs first thing in that response;
 * declined, the model is told (see `to-chat-messages.ts`). Each request is answered once.
 */

/** `mcp_approval_request`, as stored. */
export interface ApprovalRequestItem {
  type: 'mcp_approval_request';
  id: string;
  server_label: string;
  name: string;
  arguments: string;
}

type Item = ResponseItem & { type: string };

/**
 * Checks this request's approval responses against the context and returns the approved requests
 * to run now, in order. An answer to a request that is not in the context, or that was answered
 * already (by an earlier response or by a call that carries its id), is a 400 on
 * `input[i].approval_request_id`; so is an approved call to a server this request does not list.
 *
 * @example
 * const approved = checkApprovals(items, firstInput, new Set(['docs'])); // → [{ type: 'mcp_approval_request', … }]
 */
export function checkApprovals(
  items: readonly ResponseItem[],
  firstInput: number,
  labels: ReadonlySet<string>,
): ApprovalRequestItem[] {
  const requests = new Map<string, ApprovalRequestItem>();
  const answered = new Set<string>();
  const approved: ApprovalRequestItem[] = [];
  items.forEach((raw, index) => {
    const item = raw as Item;
    if (item.type === 'mcp_approval_request') requests.set(item.id as string, item as ApprovalRequestItem);
    else if (item.type === 'mcp_call') {
      const id = (item as { approval_request_id?: string | null }).approval_request_id;
      if (id) answered.add(id);
    } else if (item.type === 'mcp_approval_response') {
      const { approval_request_id: id, approve } = item as { approval_request_id: string; approve: boolean };
      if (index < firstInput) {
        answered.add(id);
        return;
      }
      const param = `input[${index - firstInput}].approval_request_id`;
      const request = requests.get(id);
      if (!request)
        throw invalidRequest(param, `No MCP approval request found with id '${clip(id)}'.`, 'invalid_value');
      if (answered.has(id))
        throw invalidRequest(
          param,
          `The MCP approval request '${clip(id)}' has already been answered.`,
          'invalid_value',
        );
      answered.add(id);
      if (!approve) return;
      if (!labels.has(request.server_label))
        throw invalidRequest(
          param,
          `The MCP server '${clip(request.server_label)}' of approval request '${clip(id)}' is not in 'tools': send its mcp tool again to run the approved call.`,
          'invalid_value',
        );
      approved.push(request);
    }
  });
  return approved;
}

/** The ids of approval requests in `items` that some item answers (a response, or a call that ran). */
export function answeredApprovals(items: readonly ResponseItem[]): Set<string> {
  const ids = new Set<string>();
  for (const raw of items) {
    const item = raw as Item & { approval_request_id?: string | null };
    if ((item.type === 'mcp_approval_response' || item.type === 'mcp_call') && item.approval_request_id)
      ids.add(item.approval_request_id);
  }
  return ids;
}
