/**
 * The remote MCP figure (`BENCH_ONLY=mcp`), issue 26: `mcp_first_call_ms`, a response that lists a
 * localhost MCP server's tools and calls one (`scripted`, `require_approval: 'never'`), through
 * intab's core with its real MCP client in Node, against the same list and call made straight with
 * `@modelcontextprotocol/client` (connect, `tools/list`, `tools/call`, close): the server's own time
 * plus the client's. The core is the same code the engine worker runs; only `fetch` differs.
 * Target: at most 30 ms over direct.
 */
import OpenAI from 'openai';
import { createServer } from 'vite';
import { alternating } from './stats.mjs';

/**
 * @param {{ runs: number, log: (...a: unknown[]) => void, root: string, stats: (v: number[], d?: number) => object }} opts
 */
export async function measureMcp({ runs, log, root, stats }) {
  // The TypeScript sources (core, scripted engine, the tests' MCP server) through Vite's SSR loader.
  const vite = await createServer({ root, logLevel: 'warn', server: { middlewareMode: true, hmr: false } });
  const load = (path) => vite.ssrLoadModule(path);
  const [{ startMcpServer }, { createResponsesServer }, { ScriptedEngine }, { MemoryStore }] =
    await Promise.all([
      load('/tests/helpers/mcp-server.ts'),
      load('/src/core/index.ts'),
      load('/src/engine/scripted/scripted-engine.ts'),
      load('/src/store/memory-store.ts'),
    ]);
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const server = await startMcpServer();
  try {
    const core = createResponsesServer({ engine: new ScriptedEngine(), store: new MemoryStore() });
    const intab = new OpenAI({
      baseURL: 'http://intab.bench/v1',
      apiKey: 'none',
      maxRetries: 0,
      fetch: (input, init) => core.fetch(new Request(input, init)),
    });
    const viaIntab = async () => {
      const t0 = performance.now();
      const r = await intab.responses.create({
        model: 'scripted',
        input: '!mcp bench echo {"text":"hi"}',
        tools: [{ type: 'mcp', server_label: 'bench', server_url: server.url, require_approval: 'never' }],
        store: false,
      });
      const ms = performance.now() - t0;
      const call = r.output.find((o) => o.type === 'mcp_call');
      if (!call || call.error || !call.output?.includes('hi'))
        throw new Error(`mcp bench: no call output (${JSON.stringify(call)})`);
      return ms;
    };
    const direct = async () => {
      const t0 = performance.now();
      const client = new Client({ name: 'bench', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      await client.listTools();
      const out = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
      await client.close();
      const ms = performance.now() - t0;
      if (!JSON.stringify(out).includes('hi')) throw new Error('mcp bench: direct call gave no output');
      return ms;
    };
    log('mcp: list + call through intab vs the MCP client directly …');
    await viaIntab(); // warm: the lazy import of the client, the first connection
    await direct();
    const intabMs = [];
    const directMs = [];
    const over = [];
    for (let i = 0; i < runs * 2; i++) {
      const [b, d] = await alternating(i, viaIntab, direct);
      intabMs.push(b);
      directMs.push(d);
      over.push(b - d);
    }
    return {
      mcp_first_call_ms: {
        ...stats(intabMs, 1),
        direct: stats(directMs, 1),
        over_direct: stats(over, 1),
        target_over_direct_ms: 30,
        compared:
          'a non-streamed response that lists and calls a localhost MCP server (scripted, require_approval never), intab core in Node, vs connect + tools/list + tools/call + close with @modelcontextprotocol/client',
      },
    };
  } finally {
    await server.close();
    await vite.close();
  }
}
