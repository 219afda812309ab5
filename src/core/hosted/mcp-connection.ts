import { MCP_MAX_LISTED_TOOLS, MCP_MAX_RESPONSE_BYTES, MCP_REQUEST_TIMEOUT_MS } from './budgets';
import type { McpToolInfo } from './mcp-policy';

/**
 * Talking to a remote MCP server from the tab: `@modelcontextprotocol/client` (loaded the first time
 * a request has an `mcp` tool, never at page load) over Streamable HTTP, through a fetch that
 * carries no ambient authority (`credentials: 'omit'`, only the request's `authorization` and
 * `headers`, redirects only within the server's origin), is bounded in time (each exchange) and
 * size (each body), and stops with the run's signal. Failures come out as {@link McpFailure}s that
 * say the likely cause: a blocked fetch (CORS), an HTTP status, a timeout, a JSON-RPC error.
 */

/** What one connection needs: where, with what secrets, and its bounds. */
export interface McpServerAddress {
  url: string;
  /** The OAuth access token the app got; sent as `Authorization: Bearer …`. */
  authorization?: string;
  headers?: Record<string, string> | null;
}

/** The result of `tools/call`, as the server sent it. */
export interface McpCallResult {
  content: unknown[];
  isError?: boolean;
  structuredContent?: unknown;
}

/** An open connection to one server, for one response. */
export interface McpSession {
  listTools(): Promise<McpToolInfo[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<McpCallResult>;
  close(): Promise<void>;
}

/** Opens sessions; the server takes a double in tests that need no real server. */
export interface McpConnector {
  open(address: McpServerAddress, signal: AbortSignal): Promise<McpSession>;
}

/** Bounds of a connector; the defaults are in `budgets.ts`. */
export interface McpConnectorOptions {
  timeoutMs?: number;
  maxResponseBytes?: number;
}

/**
 * Why an exchange with a server failed. `kind`: `blocked` (the fetch threw: CORS, or the server is
 * unreachable), `http` (a non-2xx status, in `code`), `timeout`, `too_large`, `protocol` (a JSON-RPC
 * error, its code in `code`).
 */
export class McpFailure extends Error {
  override readonly name = 'McpFailure';
  constructor(
    readonly kind: 'blocked' | 'http' | 'timeout' | 'too_large' | 'protocol',
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The connector over `@modelcontextprotocol/client`, imported on first use.
 *
 * @example
 * const session = await mcpConnector().open({ url: 'https://mcp.example/mcp' }, signal);
 */
export function mcpConnector(opts: McpConnectorOptions = {}): McpConnector {
  const timeoutMs = opts.timeoutMs ?? MCP_REQUEST_TIMEOUT_MS;
  const maxBytes = opts.maxResponseBytes ?? MCP_MAX_RESPONSE_BYTES;
  return {
    async open(address, signal) {
      const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
      const seen: { failure: McpFailure | null } = { failure: null };
      const url = new URL(address.url);
      // Header names are case-insensitive: the token replaces any Authorization among `headers`.
      const merged = new Headers(address.headers ?? {});
      if (address.authorization) merged.set('authorization', `Bearer ${address.authorization}`);
      const headers = Object.fromEntries(merged.entries());
      const transport = new StreamableHTTPClientTransport(url, {
        requestInit: { headers, credentials: 'omit' },
        redirectPolicy: 'same-origin',
        fetch: guardedFetch(url, signal, timeoutMs, maxBytes, seen),
      });
      const client = new Client({ name: 'intab', version: '1.0.0' });
      const options = { signal, timeout: timeoutMs };
      const guard = async <T>(work: () => Promise<T>): Promise<T> => {
        try {
          return await work();
        } catch (err) {
          throw signal.aborted ? err : classify(err, seen.failure, timeoutMs);
        }
      };
      try {
        await guard(() => client.connect(transport, options));
      } catch (err) {
        // A half-open connection holds nothing once closed.
        await client.close().catch(() => {});
        throw err;
      }
      return {
        listTools: () =>
          guard(async () => {
            const tools: McpToolInfo[] = [];
            let cursor: string | undefined;
            // Pages until the server has none left or the bound is reached.
            do {
              // Between pages too: a server paging slowly stops at the response's deadline or abort.
              signal.throwIfAborted();
              const page = await client.listTools(cursor ? { cursor } : undefined, options);
              for (const t of page.tools)
                tools.push({
                  name: t.name,
                  input_schema: t.inputSchema,
                  ...(t.description != null && { description: t.description }),
                  ...(t.annotations != null && { annotations: t.annotations }),
                });
              cursor = page.nextCursor;
            } while (cursor && tools.length < MCP_MAX_LISTED_TOOLS);
            return tools.slice(0, MCP_MAX_LISTED_TOOLS);
          }),
        callTool: (name, args) =>
          guard(async () => {
            const result = await client.callTool({ name, arguments: args }, options);
            return result as McpCallResult;
          }),
        close: () => client.close().catch(() => {}),
      };
    },
  };
}

/**
 * The transport's fetch: no cookies, the run's signal and a timeout on every exchange (its body
 * included), and a cap on the body's size. What went wrong is noted in `seen` for {@link classify}:
 * the client wraps transport errors in its own.
 */
function guardedFetch(
  server: URL,
  signal: AbortSignal,
  timeoutMs: number,
  maxBytes: number,
  seen: { failure: McpFailure | null },
) {
  return async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const target = new URL(input);
    if (target.origin !== server.origin)
      throw note(seen, new McpFailure('blocked', 0, `a request left the server's origin (${target.origin})`));
    const timeout = AbortSignal.timeout(timeoutMs);
    const signals = [signal, timeout, ...(init?.signal ? [init.signal] : [])];
    let res: Response;
    try {
      res = await fetch(target, { ...init, credentials: 'omit', signal: AbortSignal.any(signals) });
    } catch (err) {
      if (signal.aborted) throw err;
      // The client's own timeout (the same bound, started first) aborts `init.signal` before ours
      // fires: a hang either way, never the CORS failure a thrown fetch otherwise is (issue 38 §3.8).
      if (timeout.aborted || init?.signal?.aborted || isAbort(err)) throw note(seen, timedOut(timeoutMs));
      throw note(
        seen,
        new McpFailure(
          'blocked',
          0,
          `the fetch failed (${err instanceof Error ? err.message : String(err)}): most likely the server does not allow this origin by CORS (Access-Control-Allow-Origin and Allow-Headers on its preflight), or it is unreachable`,
        ),
      );
    }
    if (!res.ok && res.status !== 202 && res.status !== 404 && res.status !== 405)
      note(seen, new McpFailure('http', res.status, `the server answered HTTP ${res.status}`));
    if (!res.body) return res;
    let bytes = 0;
    const capped = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, ctl) {
          bytes += chunk.byteLength;
          if (bytes > maxBytes) {
            const failure = new McpFailure('too_large', 0, `the server's answer passed ${maxBytes} bytes`);
            note(seen, failure);
            ctl.error(failure);
          } else ctl.enqueue(chunk);
        },
      }),
    );
    return new Response(capped, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

function note(seen: { failure: McpFailure | null }, failure: McpFailure): McpFailure {
  seen.failure ??= failure;
  return failure;
}

function timedOut(ms: number): McpFailure {
  return new McpFailure('timeout', 0, `the server did not answer within ${Math.round(ms / 1000)} s`);
}

/** The client's error as an {@link McpFailure}: what the fetch saw first, else by its shape. */
function classify(err: unknown, seen: McpFailure | null, timeoutMs: number): McpFailure {
  if (err instanceof McpFailure) return err;
  if (seen) return seen;
  const e = err as { code?: unknown; status?: unknown; message?: unknown } | null;
  const message = typeof e?.message === 'string' ? e.message : String(err);
  if (typeof e?.status === 'number')
    return new McpFailure('http', e.status, `the server answered HTTP ${e.status}`);
  if (e?.code === 'REQUEST_TIMEOUT') return timedOut(timeoutMs);
  if (typeof e?.code === 'number') return new McpFailure('protocol', e.code, message);
  return new McpFailure('blocked', 0, message);
}

function isAbort(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return name === 'AbortError' || name === 'TimeoutError';
}
