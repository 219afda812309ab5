/**
 * All of a response's MCP listing has one bound of at most 30 s (issue 43: a server whose
 * `tools/list` pages took 1.5 s each, without end, held the response past 45 s), a 424 naming the
 * server, and a request aborted mid-listing asks for no page more. The server is a fake behind
 * `fetch`, the real connector talks to it, and the clock is faked: the test counts page requests.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { mcpConnector } from '../../../src/core/hosted';
import { MCP_LIST_DEADLINE_MS } from '../../../src/core/hosted/budgets';
import { makeRig } from '../../helpers/server';

const PAGE_MS = 1_500;

/** A Streamable HTTP MCP server whose `tools/list` pages each take {@link PAGE_MS} and always have a next one. */
function endlessPages() {
  const pages: { at: number; signal: AbortSignal | null }[] = [];
  const json = (body: unknown) =>
    new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
  const fetch = async (_input: unknown, init?: RequestInit): Promise<Response> => {
    if (init?.method !== 'POST') return new Response(null, { status: 405 });
    const msg = JSON.parse(String(init.body)) as {
      id?: number;
      method: string;
      params?: { protocolVersion?: string };
    };
    if (msg.id === undefined) return new Response(null, { status: 202 });
    if (msg.method === 'initialize')
      return json({
        jsonrpc: '2.0',
        id: msg.id,
        result: {
          protocolVersion: msg.params?.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'slow', version: '1' },
        },
      });
    const n = pages.push({ at: Date.now(), signal: init.signal ?? null });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, PAGE_MS);
      init.signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(init.signal?.reason);
      });
    });
    return json({
      jsonrpc: '2.0',
      id: msg.id,
      result: { tools: [{ name: `tool_${n}`, inputSchema: { type: 'object' } }], nextCursor: `page_${n}` },
    });
  };
  return { fetch, pages };
}

const body = {
  model: 'scripted',
  input: 'hi',
  tools: [
    { type: 'mcp', server_label: 'slowpages', server_url: 'https://mcp.test/mcp', require_approval: 'never' },
  ],
};

/** Runs fake time on until `done` settles, or 150 s (far past any bound); says whether it settled. */
async function runUntil(done: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void done.finally(() => {
    settled = true;
  });
  for (let i = 0; i < 600 && !settled; i++) await vi.advanceTimersByTimeAsync(250);
  return settled;
}

describe('the MCP listing of one response', () => {
  // The connector imports the SDK on first use: real time, which fake time must not run through.
  beforeAll(async () => {
    await import('@modelcontextprotocol/client');
  });
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('is bounded at 30 s in all: a 424 naming the server, and no page asked for after it', async () => {
    expect(MCP_LIST_DEADLINE_MS).toBeLessThanOrEqual(30_000);
    const server = endlessPages();
    vi.stubGlobal('fetch', server.fetch);
    const { call } = makeRig({ mcp: mcpConnector() });
    const start = Date.now();
    const res = call('POST', '/responses', body);
    expect(await runUntil(res)).toBe(true);
    const answered = Date.now() - start;
    const r = await res;
    expect(r.status).toBe(424);
    const error = ((await r.json()) as { error: { message: string; type: string } }).error;
    expect(error.type).toBe('external_connector_error');
    expect(error.message).toMatch(/MCP server: 'slowpages'/);
    expect(error.message).toMatch(/listing the response's MCP servers timed out/);
    // Fake time: the bound held, and pages stopped there (the one in flight aborted).
    expect(answered).toBeLessThanOrEqual(30_000 + PAGE_MS);
    expect(server.pages.length).toBeGreaterThan(3);
    expect(server.pages.every((p) => p.at - start <= MCP_LIST_DEADLINE_MS)).toBe(true);
    expect(server.pages.at(-1)?.signal?.aborted).toBe(true);
    const asked = server.pages.length;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(server.pages.length).toBe(asked);
  });

  it('stops at once when the request is aborted: the page in flight is aborted, no page follows', async () => {
    const server = endlessPages();
    vi.stubGlobal('fetch', server.fetch);
    const { server: core } = makeRig({ mcp: mcpConnector() });
    const ac = new AbortController();
    const res = core
      .fetch(
        new Request('http://intab.test/v1/responses', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: ac.signal,
        }),
      )
      .catch((e: unknown) => e);
    for (let i = 0; i < 200 && server.pages.length < 3; i++) await vi.advanceTimersByTimeAsync(100);
    expect(server.pages.length).toBe(3);
    ac.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(server.pages.at(-1)?.signal?.aborted).toBe(true);
    expect(await runUntil(res)).toBe(true);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(server.pages.length).toBe(3);
  });
});
