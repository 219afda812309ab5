import type { ResponseItem } from 'openai/resources/responses/responses';
import type { ChatMessage } from '../../../../engine/types';
import { pastMcpResult } from '../../../hosted/mcp-results';
import type { ApprovalRequestItem } from './mcp-approvals';

/**
 * The `mcp` tool's items in the model's history, as it met them: a call the model made and what
 * came back, in its family's native tool-call form. A listing shows nothing (its tools are offered
 * as functions); an approval request shows as the model's call once it was answered (an unanswered
 * one would leave a call without a result), a declined one as a result that says so, an approved
 * one through the `mcp_call` that ran it.
 */
export class McpHistory {
  private readonly requests = new Map<string, ApprovalRequestItem>();

  /** `answered`: the approval requests some item of the context answers. */
  constructor(private readonly answered: ReadonlySet<string>) {}

  /** The chat messages `item` becomes (none for items of other tools). */
  messages(item: ResponseItem): ChatMessage[] {
    const it = item as ResponseItem & { type: string };
    switch (it.type) {
      case 'mcp_approval_request': {
        const req = it as unknown as ApprovalRequestItem;
        this.requests.set(req.id, req);
        if (!this.answered.has(req.id)) return [];
        return [callMessage(req.id, req.name, req.arguments)];
      }
      case 'mcp_approval_response': {
        const r = it as unknown as { approval_request_id: string; approve: boolean; reason?: string | null };
        const req = this.requests.get(r.approval_request_id);
        if (r.approve || !req) return [];
        const why = r.reason ? ` Their reason: ${JSON.stringify(r.reason)}.` : '';
        const text = `The user declined this call to ${req.name} on MCP server '${req.server_label}': it did not run.${why} Do not call it again for this; go on without it.`;
        return [{ role: 'tool', tool_call_id: req.id, name: req.name, content: text }];
      }
      case 'mcp_call': {
        const call = it as unknown as Parameters<typeof pastMcpResult>[0] & { id: string };
        const viaRequest = call.approval_request_id && this.requests.has(call.approval_request_id);
        const callId = viaRequest ? (call.approval_request_id as string) : call.id;
        const result: ChatMessage = {
          role: 'tool',
          tool_call_id: callId,
          name: call.name,
          content: pastMcpResult(call),
        };
        return viaRequest ? [result] : [callMessage(call.id, call.name, call.arguments), result];
      }
      default:
        return [];
    }
  }
}

function callMessage(id: string, name: string, args: string): ChatMessage {
  return {
    role: 'assistant',
    content: null,
    tool_calls: [{ id, type: 'function', function: { name, arguments: args } }],
  };
}
