/**
 * Stored responses with `mcp_*` items round-trip: GET returns them as created, a replay of a
 * response without event log streams the live events again, `input_items` lists an approval
 * response, and the items are history for the next turn (the server is not listed again).
 */
import type { Response as ApiResponse } from 'openai/resources/responses/responses';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningMcpServer, startMcpServer } from '../helpers/mcp-server';
import { makeRig, readSse } from '../helpers/server';

let srv: RunningMcpServer | null = null;
afterEach(async () => {
  await srv?.close();
  srv = null;
});

const tool = (url: string, extra: Record<string, unknown> = {}) => ({
  type: 'mcp',
  server_label: 'test',
  server_url: url,
  ...extra,
});

const fold = (fs: { event: string }[]) =>
  fs.map((f) => f.event).filter((t, i, all) => !(t.endsWith('.delta') && all[i - 1]?.endsWith('.delta')));

describe('stored mcp items', () => {
  for (const [name, extra, input] of [
    ['a listing and a call', { require_approval: 'never' }, '!mcp test echo {"text":"a"}'],
    ['a listing and an approval request', {}, '!mcp test echo {"text":"a"}'],
    ['a failed call', { require_approval: 'never' }, '!mcp test fail {}'],
  ] as const)
    it(`${name}: GET returns it as created, and its replay streams the live events`, async () => {
      srv = await startMcpServer();
      const { call } = makeRig();
      const live = await readSse(
        await call('POST', '/responses', {
          model: 'scripted',
          input,
          tools: [tool(srv.url, extra)],
          stream: true,
        }),
      );
      const done = live.at(-1)?.data.response as ApiResponse;
      expect(await (await call('GET', `/responses/${done.id}`)).json()).toEqual(done);
      const replay = await readSse(await call('GET', `/responses/${done.id}?stream=true`));
      expect(fold(replay)).toEqual(fold(live));
      const items = (fs: typeof live) =>
        fs.filter((f) => f.event.startsWith('response.output_item.')).map((f) => f.data.item);
      expect(items(replay)).toEqual(items(live));
      expect(replay.at(-1)?.data.response).toEqual(done);
    });

  it('input_items lists the approval response; the next turn reads the call as history without listing again', async () => {
    srv = await startMcpServer();
    const { client } = makeRig();
    const first = await client.responses.create({
      model: 'scripted',
      input: '!mcp test echo {"text":"h"}',
      tools: [tool(srv.url) as never],
    });
    const requestId = (first.output.at(-1) as { id: string }).id;
    const second = await client.responses.create({
      model: 'scripted',
      previous_response_id: first.id,
      input: [{ type: 'mcp_approval_response', approval_request_id: requestId, approve: true }],
      tools: [tool(srv.url) as never],
    });
    const listed = await client.responses.inputItems.list(second.id, { order: 'asc' });
    expect(listed.data.map((i) => i.type)).toEqual([
      'message',
      'mcp_list_tools',
      'mcp_approval_request',
      'mcp_approval_response',
    ]);
    expect(listed.data.at(-1)).toMatchObject({ approve: true, approval_request_id: requestId });
    expect(String(listed.data.at(-1)?.id)).toMatch(/^mcpa_/);
    const third = await client.responses.create({
      model: 'scripted',
      previous_response_id: second.id,
      input: '!transcript',
      tools: [tool(srv.url) as never],
      tool_choice: 'none',
    });
    const transcript = (third.output[0] as { content: { text: string }[] }).content[0]?.text ?? '';
    expect(transcript).toContain('echo: h');
    expect(srv.counts).toEqual({ list: 1, call: 1 });
  });
});
