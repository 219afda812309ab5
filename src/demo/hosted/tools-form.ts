/**
 * "Tools": what a chat turn offers the model besides text. `file_search` turns itself on when the
 * origin has ready vector stores; this panel adds `code_interpreter` (Python in a sandbox worker
 * of this tab) and a remote `mcp` server, which the tab calls directly (it must answer CORS).
 */
import type { ResponseIncludable, Tool } from 'openai/resources/responses/responses';
import { el } from '../dom';

/** The label the demo gives the MCP server (the `!mcp <label> <tool> {…}` directive names it). */
export const DEMO_MCP_LABEL = 'demo';

/** What the panel adds to a request. */
export interface HostedTools {
  tools: Tool[];
  include: ResponseIncludable[];
}

/** The panel and a reading of its current state. */
export interface ToolsForm {
  root: HTMLElement;
  /** The tools (and `include` entries) the next turn sends, from the controls as they are now. */
  current(): HostedTools;
}

const checkbox = (id: string, text: string, checked: boolean): [HTMLInputElement, HTMLElement] => {
  const box = el('input', { attrs: { id, type: 'checkbox', 'data-testid': id } });
  box.checked = checked;
  return [box, el('label', { className: 'tools__check' }, [box, el('span', { text })])];
};

/**
 * @example
 * const tools = createToolsForm();
 * column.append(tools.root);
 * client.responses.stream({ model, input, ...tools.current() });
 */
export function createToolsForm(): ToolsForm {
  const [python, pythonLabel] = checkbox('tool-python', 'Python (code_interpreter), run in this tab', false);
  const url = el('input', {
    attrs: {
      id: 'mcp-url',
      type: 'url',
      placeholder: 'http://127.0.0.1:8000/mcp (empty: no MCP server)',
      'data-testid': 'mcp-url',
    },
  });
  const [approval, approvalLabel] = checkbox('mcp-approval', 'Ask me before each MCP call', true);
  const root = el('section', { className: 'panel tools', attrs: { 'aria-labelledby': 'tools-title' } }, [
    el('h2', { text: 'Tools', attrs: { id: 'tools-title' } }),
    el('p', {
      text: 'Try !python print(1) or !mcp demo <tool> {…} with the scripted model. file_search: pick a vector store in Files & vector stores.',
    }),
    pythonLabel,
    el('label', {
      className: 'tools__label',
      text: `MCP server URL (label "${DEMO_MCP_LABEL}"; it must allow this origin by CORS)`,
      attrs: { for: 'mcp-url' },
    }),
    url,
    approvalLabel,
  ]);
  return {
    root,
    current() {
      const tools: Tool[] = [];
      const include: ResponseIncludable[] = [];
      if (python.checked) {
        tools.push({ type: 'code_interpreter', container: { type: 'auto' } });
        include.push('code_interpreter_call.outputs');
      }
      const server = url.value.trim();
      if (server) {
        tools.push({
          type: 'mcp',
          server_label: DEMO_MCP_LABEL,
          server_url: server,
          require_approval: approval.checked ? 'always' : 'never',
        });
      }
      return { tools, include };
    },
  };
}
