/**
 * An MCP listing is bounded in all, not per page (issue 38 §3.6), stops when the request is
 * aborted, and a server that hangs is reported as a timeout, never as CORS (§3.8).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../src/common/api-error';
import {
  listMcpServers,
  type McpConnector,
  McpFailure,
  type McpSession,
  mcpConnector,
  mcpDeadline,
} from '../../../src/core/hosted';

/** A connector whose server pages forever: each `tools/list` page waits until the signal aborts. */
function pagingForever() {
  const signals: AbortSignal[] = [];
  let pages = 0;
  const connector: McpConnector = {
    async open(_address, signal) {
      signals.push(signal);
      const session: McpSession = {
        listTools: () =>
          new Promise((_, reject) => {
            const next = () => {
              pages++;
              if (signal.aborted) return reject(signal.reason);
              setTimeout(next, 5);
            };
            next();
          }),
        callTool: () => Promise.reject(new Error('unused')),
        close: async () => {},
      };
      return session;
    },
  };
  return { connector, signals, pages: () => pages };
}

const tool = { type: 'mcp', server_label: 'slow', server_url: 'https://mcp.test/mcp' } as const;

describe('listing MCP servers', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('gives up at one deadline for the whole listing: a 424 that says it timed out', async () => {
    const { connector, signals } = pagingForever();
    const err = await listMcpServers(
      [tool],
      [],
      connector,
      new AbortController().signal,
      () => 'mcpl_1',
      mcpDeadline(60),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(424);
    expect((err as ApiError).message).toMatch(/listing the response's MCP servers timed out/);
    expect(signals[0]?.aborted).toBe(true);
  }, 60_000);

  it('stops listing when the request is aborted, and the server is told (its signal aborts)', async () => {
    const { connector, signals, pages } = pagingForever();
    const ac = new AbortController();
    const listing = listMcpServers([tool], [], connector, ac.signal, () => 'mcpl_1').catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 20));
    ac.abort();
    const err = await listing;
    expect(err).not.toBeInstanceOf(ApiError);
    expect(signals[0]?.aborted).toBe(true);
    const seen = pages();
    await new Promise((r) => setTimeout(r, 30));
    expect(pages()).toBe(seen);
  }, 60_000);

  it('reports a server that never answers as a timeout, not as CORS', async () => {
    vi.stubGlobal(
      'fetch',
      (_url: unknown, init?: RequestInit) =>
        new Promise((_, reject) => {
          // As a browser's fetch does once aborted by a signal it was given: a plain TypeError.
          init?.signal?.addEventListener('abort', () => reject(new TypeError('Failed to fetch')));
        }),
    );
    const err = await mcpConnector({ timeoutMs: 100 })
      .open({ url: 'https://mcp.test/mcp' }, new AbortController().signal)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpFailure);
    expect((err as McpFailure).kind).toBe('timeout');
    expect((err as McpFailure).message).not.toMatch(/CORS/);
  }, 60_000);
});
