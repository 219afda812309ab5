/**
 * A real MCP server for the `mcp` tool's tests: the official `@modelcontextprotocol/server` package
 * over Streamable HTTP (stateless: a fresh server and transport per HTTP request), served by Node on
 * a free localhost port, behind the CORS layer a tab needs (or without it, to see the 424). It can
 * be pinned to an older protocol version, record the headers it got, hang, or answer 10 MB.
 *
 * @example
 * const srv = await startMcpServer(); // srv.url → 'http://127.0.0.1:PORT/mcp'
 * await srv.close();
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { z } from 'zod';

export interface McpServerOptions {
  /** Answer the CORS headers a tab needs (default true). */
  cors?: boolean;
  /** Pin the protocol: only these versions are offered (e.g. ['2025-06-18']). */
  protocolVersions?: string[];
  /** Answer every request with this HTTP status instead of serving it. */
  status?: number;
  /** Answer every POST with a 307 to this URL. */
  redirectTo?: string;
  /** Hold `tools/list` this long (ms) before answering. */
  listDelayMs?: number;
  /** More tools, each answering its fixed `text` (e.g. markup, for the demo's XSS test). */
  extraTools?: { name: string; description?: string; text: string }[];
}

export interface RunningMcpServer {
  url: string;
  /** Each HTTP request's headers, lower-cased, in order. */
  seen: Record<string, string>[];
  /** The protocol version the client sent on its requests after initialize. */
  versions: Set<string>;
  /** How many `tools/list` and `tools/call` requests arrived. */
  counts: { list: number; call: number };
  close(): Promise<void>;
}

const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-allow-headers':
    'content-type, authorization, mcp-protocol-version, mcp-session-id, last-event-id, mcp-method, mcp-name, x-api-key',
  'access-control-expose-headers': 'mcp-session-id, www-authenticate',
};

/** The server's tools: each one exercises one path of the tool. */
function buildServer(opts: McpServerOptions): McpServer {
  const server = new McpServer(
    { name: 'intab-test', version: '1.0.0' },
    opts.protocolVersions ? { supportedProtocolVersions: opts.protocolVersions } : {},
  );
  server.registerTool(
    'echo',
    {
      description: 'Echo the text back.',
      inputSchema: z.object({ text: z.string() }),
      annotations: { readOnlyHint: true },
    },
    async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
  );
  server.registerTool(
    'add',
    { description: 'Add two numbers.', inputSchema: z.object({ a: z.number(), b: z.number() }) },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  server.registerTool('fail', { description: 'Always fails.' }, async () => ({
    isError: true,
    content: [{ type: 'text', text: 'boom: the tool failed' }],
  }));
  server.registerTool('big', { description: 'Answers 10 MB.' }, async () => ({
    content: [{ type: 'text', text: 'x'.repeat(10 * 1024 * 1024) }],
  }));
  server.registerTool(
    'hang',
    { description: 'Never answers.' },
    () => new Promise(() => {}) as Promise<{ content: [] }>,
  );
  // The SDK warns about every nonstandard name on every registration (here, every HTTP request);
  // the extra tools' odd names are the point, so their warnings are left out.
  const warn = console.warn;
  console.warn = () => {};
  try {
    for (const extra of opts.extraTools ?? []) {
      server.registerTool(extra.name, { description: extra.description ?? '' }, async () => ({
        content: [{ type: 'text', text: extra.text }],
      }));
    }
  } finally {
    console.warn = warn;
  }
  return server;
}

async function toRequest(req: IncomingMessage, url: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
  const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
  return new Request(url, { method: req.method, headers, body });
}

async function send(res: ServerResponse, response: Response, cors: boolean): Promise<void> {
  const headers: Record<string, string> = cors ? { ...CORS_HEADERS } : {};
  response.headers.forEach((v, k) => {
    headers[k] = v;
  });
  res.writeHead(response.status, headers);
  if (response.body) for await (const chunk of response.body) res.write(chunk);
  res.end();
}

/** Starts the server on a free port of 127.0.0.1; `close()` stops it (open streams included). */
export async function startMcpServer(opts: McpServerOptions = {}): Promise<RunningMcpServer> {
  const cors = opts.cors ?? true;
  const state: Omit<RunningMcpServer, 'url' | 'close'> = {
    seen: [],
    versions: new Set(),
    counts: { list: 0, call: 0 },
  };
  const http = createServer((req, res) => {
    void (async () => {
      state.seen.push(Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])));
      if (req.method === 'OPTIONS') {
        res.writeHead(cors ? 204 : 405, cors ? CORS_HEADERS : {});
        return res.end();
      }
      if (opts.redirectTo && req.method === 'POST') {
        res.writeHead(307, { ...(cors ? CORS_HEADERS : {}), location: opts.redirectTo });
        return res.end();
      }
      if (opts.status) {
        res.writeHead(opts.status, cors ? CORS_HEADERS : {});
        return res.end('nope');
      }
      const request = await toRequest(req, `http://${req.headers.host}${req.url}`);
      const version = req.headers['mcp-protocol-version'];
      if (typeof version === 'string') state.versions.add(version);
      const text = await request.clone().text();
      if (text.includes('"tools/list"')) {
        state.counts.list += 1;
        if (opts.listDelayMs) await new Promise((r) => setTimeout(r, opts.listDelayMs));
      }
      if (text.includes('"tools/call"')) state.counts.call += 1;
      const server = buildServer(opts);
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await server.connect(transport);
      await send(res, await transport.handleRequest(request), cors);
    })().catch((err) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const { port } = http.address() as AddressInfo;
  return {
    ...state,
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((r) => {
        http.closeAllConnections();
        http.close(() => r());
      }),
  };
}
