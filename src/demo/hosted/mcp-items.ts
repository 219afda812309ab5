/**
 * What the demo shows of a remote `mcp` tool: the tools a server listed, each call (its name,
 * arguments and output or error), and an approval request with Approve / Decline. Names,
 * descriptions, arguments and output all come from a remote server: untrusted text, so it reaches
 * the page only through `el`'s `textContent` and text nodes, never as HTML (issue 26, security point 1).
 */
import type { ResponseOutputItem } from 'openai/resources/responses/responses';
import { el } from '../dom';

/** How much of a call's output or a tool's description the demo shows. */
const OUTPUT_CHARS = 2_000;

const clipped = (text: string, max = OUTPUT_CHARS) => (text.length > max ? `${text.slice(0, max)}…` : text);

/**
 * A muted block for `mcp_list_tools`: "Listed tools on <label>", then one line per tool.
 *
 * @example
 * bubble.addHosted(mcpListToolsView(item));
 */
export function mcpListToolsView(item: ResponseOutputItem.McpListTools): HTMLElement {
  return el('div', { className: 'msg__tool', attrs: { 'data-testid': 'mcp-list-tools' } }, [
    el('span', {
      text: `Listed ${item.tools.length} tool(s) on ${item.server_label}${item.error ? `: ${item.error}` : ''}`,
    }),
    el(
      'ul',
      { className: 'msg__results' },
      item.tools.map((t) =>
        el('li', { text: t.description ? `${t.name}: ${clipped(t.description, 200)}` : t.name }),
      ),
    ),
  ]);
}

/** An `mcp_call`'s error, in words: the message, or the tool's own error content as JSON. */
function errorText(error: NonNullable<ResponseOutputItem.McpCall['error']>): string {
  if (error.type === 'mcp_tool_execution_error') return `${error.type}: ${JSON.stringify(error.content)}`;
  return `${error.type} ${error.code}: ${error.message}`;
}

/**
 * A muted block for `mcp_call`: "Called <name> on <label> (status)", its arguments, and its output
 * or error, each as preformatted text.
 *
 * @example
 * bubble.addHosted(mcpCallView(item));
 */
export function mcpCallView(item: ResponseOutputItem.McpCall): HTMLElement {
  const result = item.error
    ? el('pre', { className: 'msg__code msg__code--error', text: clipped(errorText(item.error)) })
    : el('pre', { className: 'msg__code', text: clipped(item.output ?? '') });
  result.setAttribute('data-testid', 'mcp-call-result');
  return el('div', { className: 'msg__tool', attrs: { 'data-testid': 'mcp-call' } }, [
    el('span', {
      className: 'msg__tool-head',
      text: `Called ${item.name} on ${item.server_label} (${item.status ?? 'completed'})`,
    }),
    el('pre', {
      className: 'msg__code',
      text: clipped(item.arguments),
      attrs: { 'data-testid': 'mcp-call-args' },
    }),
    result,
  ]);
}

/**
 * An `mcp_approval_request` with Approve and Decline. `answer` sends the `mcp_approval_response`
 * and says whether it could (not while another turn runs); once it has, both buttons are off and
 * the block says which was chosen.
 *
 * @example
 * bubble.addHosted(mcpApprovalView(item, (approve) => session.answerApproval(item, approve)));
 */
export function mcpApprovalView(
  item: ResponseOutputItem.McpApprovalRequest,
  answer: (approve: boolean) => boolean,
): HTMLElement {
  const button = (text: string, testId: string, kind: string) =>
    el('button', { className: `button ${kind}`, text, attrs: { type: 'button', 'data-testid': testId } });
  const approve = button('Approve', 'mcp-approve', 'button--primary');
  const decline = button('Decline', 'mcp-decline', 'button--quiet');
  const status = el('span', { className: 'msg__meta', attrs: { 'aria-live': 'polite' } });
  const choose = (yes: boolean) => {
    if (!answer(yes)) {
      status.textContent = 'Wait for the running reply to end, then answer.';
      return;
    }
    approve.disabled = true;
    decline.disabled = true;
    status.textContent = yes ? 'Approved.' : 'Declined.';
  };
  approve.addEventListener('click', () => choose(true));
  decline.addEventListener('click', () => choose(false));
  return el('div', { className: 'msg__tool msg__approval', attrs: { 'data-testid': 'mcp-approval' } }, [
    el('span', { className: 'msg__tool-head', text: `${item.server_label} asks to run ${item.name} with:` }),
    el('pre', { className: 'msg__code', text: clipped(item.arguments) }),
    el('div', { className: 'composer__actions' }, [decline, approve]),
    status,
  ]);
}
