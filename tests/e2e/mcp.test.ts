/**
 * The remote `mcp` tool in Chromium, through the real service worker and engine worker: the MCP
 * client (loaded on first use) lists and calls a real MCP server on another origin that answers
 * CORS; one that does not is a 424 whose message names the server and CORS (a blocked fetch is an
 * opaque TypeError in a tab, unlike in Node).
 */
import type { Response as ApiResponse } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningMcpServer, startMcpServer } from '../helpers/mcp-server';
import { postResponse } from './api.page';
import { type AppSession, openApp } from './harness';

let app: AppSession & { pageErrors: string[] };
let cors: RunningMcpServer;
let noCors: RunningMcpServer;
beforeAll(async () => {
  [app, cors, noCors] = await Promise.all([openApp(), startMcpServer(), startMcpServer({ cors: false })]);
});
afterAll(async () => {
  await Promise.all([app?.close(), cors?.close(), noCors?.close()]);
});

const tool = (url: string) => ({
  type: 'mcp',
  server_label: 'test',
  server_url: url,
  require_approval: 'never',
});

describe('mcp in Chromium', () => {
  it('lists and calls a CORS-enabled server on another origin', async () => {
    const res = await app.page.evaluate(postResponse, {
      model: 'scripted',
      input: '!mcp test echo {"text":"tab"}',
      tools: [tool(cors.url)],
    });
    expect(res.status).toBe(200);
    const body = res.body as ApiResponse;
    expect(body.output.map((o) => o.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    expect(body.output[1]).toMatchObject({ type: 'mcp_call', status: 'completed', output: 'echo: tab' });
    // The browser sent the preflight: the CORS layer is what let it through.
    expect(cors.seen.some((h) => h['access-control-request-method'] === 'POST')).toBe(true);
  });

  it('a server without CORS headers is a 424 naming the server and CORS', async () => {
    const res = await app.page.evaluate(postResponse, {
      model: 'scripted',
      input: 'hi',
      tools: [tool(noCors.url)],
    });
    expect(res.status).toBe(424);
    const message = (res.body as { error: { message: string } }).error.message;
    expect(message).toContain(
      "Error retrieving tool list from MCP server: 'test'. Http status code: 424 (Failed Dependency)",
    );
    expect(message).toContain('CORS');
  });
});
