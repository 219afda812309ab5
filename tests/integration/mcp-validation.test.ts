/**
 * Validation of the remote `mcp` tool, its tool choices and its input items: every bad value is a
 * 400 with OpenAI's `param`, before any MCP server is reached or anything is stored.
 */
import { describe, expect, it } from 'vitest';
import type { McpConnector } from '../../src/core/hosted';
import { makeRig } from '../helpers/server';
import { expectError } from './create-helpers';

const ok = { type: 'mcp', server_label: 'docs', server_url: 'https://mcp.example/mcp' };

/** A connector that must not be reached: it counts attempts. */
function noNetwork() {
  const opened: string[] = [];
  const connector: McpConnector = {
    open: async (address) => {
      opened.push(address.url);
      throw new Error('no network in validation tests');
    },
  };
  return { opened, connector };
}

const approvalResponse = (id: string, approve = true) => ({
  type: 'mcp_approval_response',
  approval_request_id: id,
  approve,
});

const cases: { name: string; body: Record<string, unknown>; param: string; code?: string }[] = [
  {
    name: 'connector_id',
    body: { tools: [{ ...ok, connector_id: 'connector_gmail' }] },
    param: 'tools[0].connector_id',
    code: 'unsupported_value',
  },
  {
    name: 'tunnel_id',
    body: { tools: [{ ...ok, tunnel_id: 'tun_1' }] },
    param: 'tools[0].tunnel_id',
    code: 'unsupported_value',
  },
  {
    name: 'no server_url',
    body: { tools: [{ type: 'mcp', server_label: 'docs' }] },
    param: 'tools[0].server_url',
    code: 'missing_required_parameter',
  },
  {
    name: 'no server_label',
    body: { tools: [{ type: 'mcp', server_url: ok.server_url }] },
    param: 'tools[0].server_label',
  },
  {
    name: 'bad server_label',
    body: { tools: [{ ...ok, server_label: 'a b' }] },
    param: 'tools[0].server_label',
  },
  {
    name: 'http server_url not on localhost',
    body: { tools: [{ ...ok, server_url: 'http://mcp.example/mcp' }] },
    param: 'tools[0].server_url',
    code: 'invalid_value',
  },
  {
    name: 'server_url not a URL',
    body: { tools: [{ ...ok, server_url: 'nope' }] },
    param: 'tools[0].server_url',
  },
  {
    name: "server_url on intab's own origin",
    body: { tools: [{ ...ok, server_url: 'http://intab.test/mcp' }] },
    param: 'tools[0].server_url',
  },
  {
    name: 'allowed_tools of numbers',
    body: { tools: [{ ...ok, allowed_tools: [1] }] },
    param: 'tools[0].allowed_tools[0]',
  },
  {
    name: 'allowed_tools filter with an unknown key',
    body: { tools: [{ ...ok, allowed_tools: { names: ['a'] } }] },
    param: 'tools[0].allowed_tools.names',
  },
  {
    name: "require_approval 'sometimes'",
    body: { tools: [{ ...ok, require_approval: 'sometimes' }] },
    param: 'tools[0].require_approval',
  },
  {
    name: 'require_approval filter with a bad read_only',
    body: { tools: [{ ...ok, require_approval: { never: { read_only: 'yes' } } }] },
    param: 'tools[0].require_approval.never.read_only',
  },
  {
    name: 'headers with a number',
    body: { tools: [{ ...ok, headers: { 'x-k': 1 } }] },
    param: 'tools[0].headers.x-k',
  },
  { name: 'unknown field', body: { tools: [{ ...ok, server_token: 'x' }] }, param: 'tools[0].server_token' },
  { name: 'two servers with one label', body: { tools: [ok, ok] }, param: 'tools[1].server_label' },
  {
    name: "tool_choice {type:'mcp'} naming no server of tools",
    body: { tools: [ok], tool_choice: { type: 'mcp', server_label: 'other' } },
    param: 'tool_choice.server_label',
  },
  {
    name: 'allowed_tools naming an unknown server',
    body: {
      tools: [ok],
      tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [{ type: 'mcp', server_label: 'other' }] },
    },
    param: 'tool_choice.tools[0]',
  },
  {
    name: 'an approval response for no request',
    body: { tools: [ok], input: [approvalResponse('mcpr_nope')] },
    param: 'input[0].approval_request_id',
    code: 'invalid_value',
  },
  {
    name: 'an approval response without approve',
    body: { tools: [ok], input: [{ type: 'mcp_approval_response', approval_request_id: 'mcpr_1' }] },
    param: 'input[0].approve',
  },
  {
    name: 'an mcp_call with a bad status',
    body: {
      input: [
        {
          type: 'mcp_call',
          id: 'mcp_1',
          server_label: 'docs',
          name: 'echo',
          arguments: '{}',
          status: 'done',
        },
      ],
    },
    param: 'input[0].status',
  },
  {
    name: 'an approval answered twice',
    body: {
      tools: [ok],
      input: [
        { type: 'mcp_approval_request', id: 'mcpr_1', server_label: 'docs', name: 'echo', arguments: '{}' },
        approvalResponse('mcpr_1', false),
        approvalResponse('mcpr_1', false),
      ],
    },
    param: 'input[2].approval_request_id',
  },
  {
    name: 'an approval for a server this request does not list',
    body: {
      input: [
        { type: 'mcp_approval_request', id: 'mcpr_1', server_label: 'docs', name: 'echo', arguments: '{}' },
        approvalResponse('mcpr_1'),
      ],
    },
    param: 'input[1].approval_request_id',
  },
];

describe('mcp validation', () => {
  for (const c of cases) {
    it(`${c.name} → 400 ${c.param}`, async () => {
      const { opened, connector } = noNetwork();
      const { call, store } = makeRig({ mcp: connector });
      const res = await call('POST', '/responses', { model: 'scripted', input: 'hi', ...c.body });
      await expectError(res, 400, c.param, c.code);
      expect(opened).toEqual([]);
      expect((await store.listRecent(10)).responses).toHaveLength(0);
    });
  }

  it('accepts every item type of the mcp tool in input, and a listing in context is not fetched again', async () => {
    const { opened, connector } = noNetwork();
    const { client } = makeRig({ mcp: connector });
    const r = await client.responses.create({
      model: 'scripted',
      input: [
        {
          type: 'mcp_list_tools',
          id: 'mcpl_1',
          server_label: 'docs',
          tools: [{ name: 'echo', input_schema: { type: 'object' } }],
        },
        {
          type: 'mcp_approval_request',
          id: 'mcpr_1',
          server_label: 'docs',
          name: 'echo',
          arguments: '{"text":"a"}',
        },
        { type: 'mcp_approval_response', approval_request_id: 'mcpr_1', approve: false, reason: 'not now' },
        {
          type: 'mcp_call',
          id: 'mcp_1',
          server_label: 'docs',
          name: 'echo',
          arguments: '{}',
          output: 'echo: ',
          status: 'completed',
        },
        { role: 'user', content: '!transcript' },
      ],
      tools: [ok as never],
      tool_choice: 'none',
    });
    expect(opened).toEqual([]);
    const transcript = JSON.parse((r.output[0] as { content: { text: string }[] }).content[0]?.text ?? '');
    const text = JSON.stringify(transcript);
    expect(text).toContain('The user declined this call to echo');
    expect(text).toContain('not now');
    expect(text).toContain('echo: ');
  });
});
