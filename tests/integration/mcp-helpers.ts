/**
 * What the `mcp` integration tests share: a real MCP server per test (closed after it), the tool
 * entry, and readers of a response's items and events.
 */
import type { Response as ApiResponse, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterEach } from 'vitest';
import { type McpServerOptions, type RunningMcpServer, startMcpServer } from '../helpers/mcp-server';

export const servers: RunningMcpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

export async function server(opts: McpServerOptions = {}) {
  const s = await startMcpServer(opts);
  servers.push(s);
  return s;
}

export const mcp = (url: string, extra: Record<string, unknown> = {}) =>
  ({ type: 'mcp', server_label: 'test', server_url: url, ...extra }) as never;

export type Item = ApiResponse['output'][number] & Record<string, unknown>;
export const items = (r: ApiResponse) => r.output as Item[];
export const answer = (r: ApiResponse) =>
  (items(r).at(-1) as { content?: { text: string }[] }).content?.[0]?.text;

export async function events(stream: AsyncIterable<ResponseStreamEvent>) {
  const all: ResponseStreamEvent[] = [];
  for await (const e of stream) all.push(e);
  return all;
}

/** The tool names an `mcp_list_tools` item lists. */
export const listedNames = (item: Item | undefined) =>
  ((item?.tools ?? []) as { name: string }[]).map((t) => t.name);
