/**
 * Calls of the remote `mcp` tool against a real MCP server, with the scripted model: the item's
 * events in order, each kind of error inside a 200, the bounds (size, time), `allowed_tools`,
 * `tool_choice`, an older protocol version, `max_tool_calls`, and a stop while a call hangs.
 */
import type { Response as ApiResponse } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { mcpConnector } from '../../src/core/hosted';
import { makeRig } from '../helpers/server';
import { answer, events, type Item, items, listedNames, mcp, server } from './mcp-helpers';

describe('mcp: calls', () => {
  it("require_approval 'never': the call streams its events in order inside one response", async () => {
    const srv = await server();
    const { client } = makeRig();
    const all = await events(
      await client.responses.create({
        model: 'scripted',
        input: '!mcp test add {"a":2,"b":3}',
        tools: [mcp(srv.url, { require_approval: 'never' })],
        stream: true,
      }),
    );
    const types = all.map((e) => e.type);
    const start = types.indexOf('response.output_item.added', 3);
    expect(types.slice(start, start + 7)).toEqual([
      'response.output_item.added',
      'response.mcp_call.in_progress',
      'response.mcp_call_arguments.delta',
      'response.mcp_call_arguments.done',
      'response.mcp_call.completed',
      'response.output_item.done',
      'response.output_item.added',
    ]);
    const added = all[start] as unknown as { item: Item };
    expect(added.item).toMatchObject({ type: 'mcp_call', status: 'in_progress', arguments: '{"a":2,"b":3}' });
    expect(String(added.item.id)).toMatch(/^mcp_/);
    const delta = all[start + 2] as { delta: string; item_id: string };
    expect(delta).toMatchObject({ delta: '{"a":2,"b":3}', item_id: added.item.id });
    const final = (all.at(-1) as { response: ApiResponse }).response;
    expect(items(final)[1]).toMatchObject({ type: 'mcp_call', status: 'completed', output: '5' });
    // scripted quotes the server's output itself, without the frame the model reads it in.
    expect(answer(final)).toBe('Tool add returned: 5');
  });

  it('a tool error is an mcp_tool_execution_error inside a 200, with mcp_call.failed', async () => {
    const srv = await server();
    const { client } = makeRig();
    const all = await events(
      await client.responses.create({
        model: 'scripted',
        input: '!mcp test fail {}',
        tools: [mcp(srv.url, { require_approval: 'never' })],
        stream: true,
      }),
    );
    expect(all.map((e) => e.type)).toContain('response.mcp_call.failed');
    const final = (all.at(-1) as { response: ApiResponse }).response;
    expect(final.status).toBe('completed');
    expect(items(final)[1]).toMatchObject({
      type: 'mcp_call',
      status: 'failed',
      output: null,
      error: { type: 'mcp_tool_execution_error', content: [{ type: 'text', text: 'boom: the tool failed' }] },
    });
    expect(answer(final)).toContain('boom: the tool failed');
  });

  it('a JSON-RPC error is an mcp_protocol_error (a listing in context names a tool the server lacks)', async () => {
    const srv = await server();
    const { client } = makeRig();
    const r = await client.responses.create({
      model: 'scripted',
      input: [
        {
          type: 'mcp_list_tools',
          id: 'mcpl_old',
          server_label: 'test',
          tools: [{ name: 'gone', input_schema: { type: 'object' } }],
        },
        { role: 'user', content: '!mcp test gone {}' },
      ] as never,
      tools: [mcp(srv.url, { require_approval: 'never' })],
    });
    expect(srv.counts.list).toBe(0);
    expect(items(r)[0]).toMatchObject({
      type: 'mcp_call',
      status: 'failed',
      error: { type: 'mcp_protocol_error', code: -32602 },
    });
  });

  it('a 10 MB answer is cut off: an http_error inside a 200, the model told', async () => {
    const srv = await server();
    const { client } = makeRig();
    const r = await client.responses.create({
      model: 'scripted',
      input: '!mcp test big {}',
      tools: [mcp(srv.url, { require_approval: 'never' })],
    });
    expect(r.status).toBe('completed');
    expect(items(r)[1]).toMatchObject({
      type: 'mcp_call',
      status: 'failed',
      output: null,
      error: { type: 'http_error' },
    });
    expect(JSON.stringify(items(r)[1]?.error)).toContain('bytes');
  });

  it('a tool that hangs is given up on after the timeout (the failure names the 300 ms bound)', async () => {
    const srv = await server();
    const { client } = makeRig({ mcp: mcpConnector({ timeoutMs: 300 }) });
    const r = await client.responses.create({
      model: 'scripted',
      input: '!mcp test hang {}',
      tools: [mcp(srv.url, { require_approval: 'never' })],
    });
    expect(items(r)[1]).toMatchObject({ type: 'mcp_call', status: 'failed', error: { type: 'http_error' } });
    expect(JSON.stringify(items(r)[1]?.error)).toContain('did not answer within');
  });

  it('allowed_tools filters the listing and what the model is offered; read_only matches readOnlyHint', async () => {
    const srv = await server();
    const { client } = makeRig();
    const byName = await client.responses.create({
      model: 'scripted',
      input: '!mcp test add {"a":1,"b":1}',
      tools: [mcp(srv.url, { allowed_tools: ['echo'], require_approval: 'never' })],
    });
    expect(listedNames(items(byName)[0])).toEqual(['echo']);
    // `add` is not offered: the scripted model, unable to call it, calls the one tool it was offered.
    const calls = items(byName).filter((i) => i.type === 'mcp_call');
    expect(calls.map((c) => c.name)).toEqual(['echo']);
    const readOnly = await client.responses.create({
      model: 'scripted',
      input: '!mcp test echo {"text":"r"}',
      tools: [
        mcp(srv.url, {
          allowed_tools: { read_only: true },
          require_approval: { never: { read_only: true } },
        }),
      ],
    });
    expect(listedNames(items(readOnly)[0])).toEqual(['echo']);
    expect(items(readOnly)[1]).toMatchObject({ type: 'mcp_call', output: 'echo: r' });
  });

  it('works against a server on the older protocol version 2025-06-18', async () => {
    const srv = await server({ protocolVersions: ['2025-06-18'] });
    const { client } = makeRig();
    const r = await client.responses.create({
      model: 'scripted',
      input: '!mcp test echo {"text":"old"}',
      tools: [mcp(srv.url, { require_approval: 'never' })],
    });
    expect(items(r)[1]).toMatchObject({ type: 'mcp_call', output: 'echo: old' });
    expect([...srv.versions]).toEqual(['2025-06-18']);
  });

  it('tool_choice {type:mcp, name} forces that tool', async () => {
    const srv = await server();
    const { client } = makeRig();
    const r = await client.responses.create({
      model: 'scripted',
      input: 'anything',
      tools: [mcp(srv.url, { require_approval: 'never' })],
      tool_choice: { type: 'mcp', server_label: 'test', name: 'add' },
    });
    expect(items(r)[1]).toMatchObject({ type: 'mcp_call', name: 'add' });
  });

  it('max_tool_calls counts MCP calls: past it, calls are ignored', async () => {
    const srv = await server();
    const { client } = makeRig();
    const r = await client.responses.create({
      model: 'scripted',
      input: '!mcp test echo {"text":"1"} !mcp test echo {"text":"2"}',
      tools: [mcp(srv.url, { require_approval: 'never' })],
      max_tool_calls: 1,
    });
    expect(items(r).filter((i) => i.type === 'mcp_call')).toHaveLength(1);
    expect(srv.counts.call).toBe(1);
  });

  it('a background cancel while a call hangs stops it: the call ends incomplete (no timeout could have ended it)', async () => {
    const srv = await server();
    // No call timeout that could end the hang first: only the cancel can, within the test's own timeout.
    const { client } = makeRig({ mcp: mcpConnector({ timeoutMs: 600_000 }) });
    const r = await client.responses.create({
      model: 'scripted',
      input: '!mcp test hang {}',
      tools: [mcp(srv.url, { require_approval: 'never' })],
      background: true,
    });
    for (let i = 0; i < 200 && srv.counts.call === 0; i++) await new Promise((ok) => setTimeout(ok, 10));
    expect(srv.counts.call).toBe(1);
    const cancelled = await client.responses.cancel(r.id);
    expect(cancelled.status).toBe('cancelled');
    expect(items(cancelled).map((i) => [i.type, i.status ?? null])).toEqual([
      ['mcp_list_tools', null],
      ['mcp_call', 'incomplete'],
    ]);
  });

  it('an approval runs only a tool the request still offers (allowed_tools): else a 400 on the answer', async () => {
    const srv = await server();
    const { client } = makeRig();
    const first = await client.responses.create({
      model: 'scripted',
      input: '!mcp test add {"a":1,"b":1}',
      tools: [mcp(srv.url)],
    });
    const request = items(first).at(-1) as { id: string };
    const next = client.responses.create({
      model: 'scripted',
      input: [
        ...(first.output as never[]).filter((i: { type: string }) => i.type !== 'mcp_list_tools'),
        { type: 'mcp_approval_response', approval_request_id: request.id, approve: true },
      ],
      tools: [mcp(srv.url, { allowed_tools: ['echo'] })],
    });
    await expect(next).rejects.toMatchObject({ status: 400, param: 'input[1].approval_request_id' });
    expect(srv.counts.call).toBe(0);
  });

  it('input_tokens counts the listed tools the model would be offered', async () => {
    const srv = await server();
    const { call } = makeRig();
    const count = async (tools: unknown[]) =>
      (
        await (
          await call('POST', '/responses/input_tokens', { model: 'scripted', input: 'hi', tools })
        ).json()
      ).input_tokens as number;
    const none = await count([]);
    const one = await count([mcp(srv.url, { allowed_tools: ['echo'] })]);
    const all = await count([mcp(srv.url)]);
    expect(none).toBeLessThan(one);
    expect(one).toBeLessThan(all);
  });
});
