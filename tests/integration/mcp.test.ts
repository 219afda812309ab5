/**
 * The remote `mcp` tool inside `responses.create`, through the official `openai` SDK, against a real
 * MCP server (the official server package over Streamable HTTP on localhost, `tests/helpers/
 * mcp-server.ts`), with the scripted model (`!mcp <label> <tool> <json>` calls a tool). Listing and
 * its events, approvals across requests, calls and their errors, bounds, secrets.
 */
import type { Response as ApiResponse } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { mcpConnector } from '../../src/core/hosted';
import { startMcpServer } from '../helpers/mcp-server';
import { makeRig } from '../helpers/server';
import { answer, events, items, listedNames, mcp, server } from './mcp-helpers';

describe('mcp: listing and approvals', () => {
  it('lists the server, then ends completed with an approval request (the default) and no event of its own', async () => {
    const srv = await server();
    const { client } = makeRig();
    const all = await events(
      await client.responses.create({
        model: 'scripted',
        input: '!mcp test echo {"text":"hi"}',
        tools: [mcp(srv.url)],
        stream: true,
      }),
    );
    const types = all.map((e) => e.type);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.mcp_list_tools.in_progress',
      'response.mcp_list_tools.completed',
      'response.output_item.done',
      'response.output_item.added',
      'response.output_item.done',
      'response.completed',
    ]);
    const done = all.at(-1) as { response: ApiResponse };
    expect(done.response.status).toBe('completed');
    const [list, request] = items(done.response);
    expect(list).toMatchObject({ type: 'mcp_list_tools', server_label: 'test' });
    expect(String(list?.id)).toMatch(/^mcpl_/);
    expect(listedNames(list)).toEqual(['echo', 'add', 'fail', 'big', 'hang']);
    expect(((list?.tools ?? []) as { name: string; annotations?: unknown }[])[0]).toMatchObject({
      name: 'echo',
      annotations: { readOnlyHint: true },
      input_schema: { type: 'object', properties: { text: { type: 'string' } } },
    });
    expect(request).toMatchObject({
      type: 'mcp_approval_request',
      server_label: 'test',
      name: 'echo',
      arguments: '{"text":"hi"}',
    });
    expect(String(request?.id)).toMatch(/^mcpr_/);
    expect(srv.counts).toEqual({ list: 1, call: 0 });
  });

  it('approved with previous_response_id: the call runs with approval_request_id, and the server is not listed again', async () => {
    const srv = await server();
    const { client } = makeRig();
    const first = await client.responses.create({
      model: 'scripted',
      input: '!mcp test echo {"text":"hi"}',
      tools: [mcp(srv.url, { require_approval: 'always' })],
    });
    const request = items(first).at(-1) as { id: string };
    const second = await client.responses.create({
      model: 'scripted',
      previous_response_id: first.id,
      input: [{ type: 'mcp_approval_response', approval_request_id: request.id, approve: true }],
      tools: [mcp(srv.url, { require_approval: 'always' })],
    });
    expect(items(second).map((i) => i.type)).toEqual(['mcp_call', 'message']);
    expect(items(second)[0]).toMatchObject({
      type: 'mcp_call',
      status: 'completed',
      name: 'echo',
      arguments: '{"text":"hi"}',
      output: 'echo: hi',
      error: null,
      approval_request_id: request.id,
    });
    expect(answer(second)).toContain('echo: hi');
    expect(srv.counts).toEqual({ list: 1, call: 1 });
    // Answered once: a second answer is a 400 naming it.
    const again = client.responses.create({
      model: 'scripted',
      previous_response_id: second.id,
      input: [{ type: 'mcp_approval_response', approval_request_id: request.id, approve: true }],
      tools: [mcp(srv.url)],
    });
    await expect(again).rejects.toMatchObject({ status: 400, param: 'input[0].approval_request_id' });
  });

  it('rejected: no call, and the model is told, with the reason', async () => {
    const srv = await server();
    const { client } = makeRig();
    const first = await client.responses.create({
      model: 'scripted',
      input: '!mcp test add {"a":1,"b":2}',
      tools: [mcp(srv.url)],
    });
    const request = items(first).at(-1) as { id: string };
    const second = await client.responses.create({
      model: 'scripted',
      previous_response_id: first.id,
      input: [
        {
          type: 'mcp_approval_response',
          approval_request_id: request.id,
          approve: false,
          reason: 'too costly',
        },
      ],
      tools: [mcp(srv.url)],
    });
    expect(items(second).map((i) => i.type)).toEqual(['message']);
    expect(answer(second)).toContain('The user declined this call to add');
    expect(answer(second)).toContain('too costly');
    expect(srv.counts.call).toBe(0);
  });

  it('approved through a conversation', async () => {
    const srv = await server();
    const { client } = makeRig();
    const conv = await client.conversations.create({});
    const first = await client.responses.create({
      model: 'scripted',
      conversation: conv.id,
      input: '!mcp test echo {"text":"conv"}',
      tools: [mcp(srv.url)],
    });
    const request = items(first).at(-1) as { id: string };
    const second = await client.responses.create({
      model: 'scripted',
      conversation: conv.id,
      input: [{ type: 'mcp_approval_response', approval_request_id: request.id, approve: true }],
      tools: [mcp(srv.url)],
    });
    expect(items(second)[0]).toMatchObject({
      type: 'mcp_call',
      output: 'echo: conv',
      approval_request_id: request.id,
    });
    expect(srv.counts.list).toBe(1);
  });

  it('approved with the items replayed (no previous_response_id): the listing in input is reused', async () => {
    const srv = await server();
    const { client } = makeRig();
    const first = await client.responses.create({
      model: 'scripted',
      input: '!mcp test echo {"text":"replay"}',
      tools: [mcp(srv.url)],
      store: false,
    });
    const request = items(first).at(-1) as { id: string };
    const second = await client.responses.create({
      model: 'scripted',
      input: [
        { role: 'user', content: '!mcp test echo {"text":"replay"}' },
        ...(first.output as never[]),
        { type: 'mcp_approval_response', approval_request_id: request.id, approve: true },
      ],
      tools: [mcp(srv.url)],
      store: false,
    });
    expect(items(second)[0]).toMatchObject({ type: 'mcp_call', output: 'echo: replay' });
    expect(srv.counts.list).toBe(1);
  });
});

describe('mcp: a server that cannot be listed fails the request with 424', () => {
  const cases: [string, () => Promise<string>, RegExp, ReturnType<typeof mcpConnector> | undefined][] = [
    [
      'unreachable (a blocked fetch names CORS)',
      async () => {
        const s = await startMcpServer();
        await s.close();
        return s.url;
      },
      /CORS/,
      undefined,
    ],
    ['an HTTP 500', async () => (await server({ status: 500 })).url, /HTTP 500/, undefined],
    [
      'a redirect to another origin (not followed)',
      async () => {
        const other = await server();
        return (await server({ redirectTo: other.url.replace('127.0.0.1', 'localhost') })).url;
      },
      /HTTP 307/,
      undefined,
    ],
    [
      'an HTTP 401 (no OAuth flow is started)',
      async () => (await server({ status: 401 })).url,
      /HTTP 401/,
      undefined,
    ],
    [
      'a list that hangs',
      async () => (await server({ listDelayMs: 3000 })).url,
      /did not answer within/,
      mcpConnector({ timeoutMs: 300 }),
    ],
  ];
  for (const [name, url, cause, connector] of cases)
    it(name, async () => {
      const { client, store } = makeRig(connector ? { mcp: connector } : {});
      const err = await client.responses
        .create({ model: 'scripted', input: 'hi', tools: [mcp(await url())] })
        .catch((e) => e);
      expect(err.status).toBe(424);
      expect(err.message).toContain(
        "Error retrieving tool list from MCP server: 'test'. Http status code: 424 (Failed Dependency)",
      );
      expect(err.message).toMatch(cause);
      expect((await store.listRecent(10)).responses).toHaveLength(0);
    });
});

describe('mcp: secrets', () => {
  it('sends authorization as a Bearer token and headers as given, and never stores or echoes them', async () => {
    const srv = await server();
    const { client, call, store } = makeRig();
    const tool = mcp(srv.url, {
      authorization: 'tok-SECRET-1',
      headers: { 'x-api-key': 'key-SECRET-2' },
      require_approval: 'never',
    });
    const r = await client.responses.create({
      model: 'scripted',
      input: '!mcp test echo {"text":"s"}',
      tools: [tool],
    });
    expect(
      srv.seen.every((h) => h.authorization === 'Bearer tok-SECRET-1' || h.authorization === undefined),
    ).toBe(true);
    expect(
      srv.seen.some((h) => h.authorization === 'Bearer tok-SECRET-1' && h['x-api-key'] === 'key-SECRET-2'),
    ).toBe(true);
    expect(r.tools[0]).toMatchObject({ authorization: '[redacted]', headers: { 'x-api-key': '[redacted]' } });
    // A token in `authorization` wins over an Authorization among `headers`, whatever its case.
    const before = srv.seen.length;
    await client.responses.create({
      model: 'scripted',
      input: '!mcp test echo {"text":"t"}',
      tools: [
        mcp(srv.url, {
          authorization: 'tok-SECRET-3',
          headers: { Authorization: 'Basic x' },
          require_approval: 'never',
        }),
      ],
    });
    expect(srv.seen.slice(before).map((h) => h.authorization)).toContain('Bearer tok-SECRET-3');
    expect(srv.seen.slice(before).map((h) => h.authorization)).not.toContain('Basic x');
    const got = await (await call('GET', `/responses/${r.id}`)).text();
    expect(got).not.toContain('SECRET');
    const stored = JSON.stringify(await store.getResponse(r.id));
    expect(stored).not.toContain('SECRET');
  });

  it('redacts the request’s own secrets when the server echoes them, in the listing and in a call’s output (issue 38 §3.8)', async () => {
    const srv = await server({
      extraTools: [{ name: 'leak', description: 'knows key-SECRET-5', text: 'your token is tok-SECRET-4' }],
    });
    const { client, store } = makeRig();
    const tool = mcp(srv.url, {
      authorization: 'tok-SECRET-4',
      headers: { 'x-api-key': 'key-SECRET-5' },
      require_approval: 'never',
    });
    const r = await client.responses.create({
      model: 'scripted',
      input: '!mcp test echo {"text":"key-SECRET-5 and tok-SECRET-4"}',
      tools: [tool],
    });
    const call = items(r).find((i) => i.type === 'mcp_call');
    expect(call?.output).toBe('echo: [redacted] and [redacted]');
    const leak = await client.responses.create({
      model: 'scripted',
      input: '!mcp test leak {}',
      tools: [tool],
    });
    expect(items(leak).find((i) => i.type === 'mcp_call')?.output).toBe('your token is [redacted]');
    const listing = items(leak).find((i) => i.type === 'mcp_list_tools');
    expect(JSON.stringify(listing)).toContain('knows [redacted]');
    // What the server sent is stored redacted (the secrets stay only where the app wrote them: the first input).
    expect(JSON.stringify(await store.getResponse(leak.id))).not.toContain('SECRET');
  });
});
