/**
 * The remote engine's figures (`BENCH_ONLY=remote`): the same prompt streamed from a real
 * llama-server (scripts/llama-server.mjs, the bench GGUF, 2 threads) once through intab (the
 * Responses core with the remote engine, in Node, via the `openai` SDK) and once straight from the
 * server with the SDK, alternating, greedy so both sides produce the same tokens.
 *
 * - `remote_vs_direct`: tokens/s through intab ÷ tokens/s direct (goal ≥ 0.97).
 * - `remote_first_token_overhead_ms`: first text delta through intab − first delta direct (goal ≤ 5).
 */
import OpenAI from 'openai';
import { createServer } from 'vite';
import { alternating } from './stats.mjs';

const PROMPT = 'Tell me everything you know about the history of the printing press.';
const MAX_TOKENS = Number(process.env.BENCH_REMOTE_TOKENS ?? 256);

/**
 * @param {{ runs: number, log: (...a: unknown[]) => void, root: string, stats: (v: number[], d?: number) => object }} opts
 */
export async function measureRemote({ runs, log, root, stats }) {
  // The TypeScript sources (core, engine, the test helper that starts llama-server) through Vite's SSR loader.
  const vite = await createServer({ root, logLevel: 'warn', server: { middlewareMode: true, hmr: false } });
  const load = (path) => vite.ssrLoadModule(path);
  const [{ startLlamaServer, LLAMA_MODEL_ID }, { createResponsesServer }, engines, { MemoryStore }] =
    await Promise.all([
      load('/tests/helpers/llama-server.ts'),
      load('/src/core/index.ts'),
      load('/src/engine/index.ts'),
      load('/src/store/memory-store.ts'),
    ]);
  log('remote: starting llama-server with the bench GGUF (building it first when missing) …');
  const llama = await startLlamaServer({ model: 'bench', threads: 2 });
  try {
    const direct = new OpenAI({ baseURL: llama.baseURL, apiKey: 'none', maxRetries: 0 });
    const remote = new engines.RemoteEngine({
      servers: [{ baseURL: llama.baseURL, models: [LLAMA_MODEL_ID] }],
    });
    const core = createResponsesServer({ engine: remote, store: new MemoryStore() });
    const intab = new OpenAI({
      baseURL: 'http://intab.bench/v1',
      apiKey: 'none',
      maxRetries: 0,
      fetch: (input, init) => core.fetch(new Request(input, init)),
    });
    const timeDirect = async () => {
      const t0 = performance.now();
      let first = 0;
      let tokens = 0;
      const stream = await direct.chat.completions.create({
        model: LLAMA_MODEL_ID,
        messages: [{ role: 'user', content: PROMPT }],
        max_tokens: MAX_TOKENS,
        temperature: 0,
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const c of stream) {
        if (!first && c.choices[0]?.delta?.content) first = performance.now() - t0;
        if (c.usage) tokens = c.usage.completion_tokens;
      }
      return { first, tokens, ms: performance.now() - t0 };
    };
    const timeIntab = async () => {
      const t0 = performance.now();
      let first = 0;
      let tokens = 0;
      const stream = await intab.responses.create({
        model: LLAMA_MODEL_ID,
        input: PROMPT,
        max_output_tokens: MAX_TOKENS,
        temperature: 0,
        store: false,
        stream: true,
      });
      for await (const e of stream) {
        if (!first && e.type === 'response.output_text.delta') first = performance.now() - t0;
        if (e.type === 'response.completed' || e.type === 'response.incomplete')
          tokens = e.response.usage?.output_tokens ?? 0;
      }
      return { first, tokens, ms: performance.now() - t0 };
    };
    await timeDirect(); // warm the server (model pages, KV cache shape) for both sides alike
    await timeIntab();
    const ratios = [];
    const overheads = [];
    for (let i = 0; i < runs; i++) {
      // Each side goes first every other pair, so a drift in the machine's load cancels out.
      const [d, m] = await alternating(i, timeDirect, timeIntab);
      if (d.tokens !== m.tokens) log(`remote: token counts differ (direct ${d.tokens}, intab ${m.tokens})`);
      ratios.push(m.tokens / m.ms / (d.tokens / d.ms));
      overheads.push(m.first - d.first);
    }
    return {
      remote_vs_direct: stats(ratios),
      remote_first_token_overhead_ms: stats(overheads, 2),
    };
  } finally {
    await llama.stop();
    await vite.close();
  }
}
