/**
 * The llama.cpp bench page: intab as an app runs it (`startIntab({ wllama })`, the production engine
 * worker and service worker), and beside it wllama called directly in this page with the same GGUF,
 * the same load parameters and the same wasm, so each figure compares intab with no intab.
 * `bench/run.mjs` drives `window.wllamaBench`.
 */
import { type ChatCompletionChunk, type LoadModelParams, Wllama } from '@wllama/wllama/esm/index.js';
import { startIntab } from '../src/client';
import { defaultThreads, loadParams } from '../src/engine/wllama/wllama-instance';

export const MODELS = {
  tiny: '/test-models/intab-tiny-random.gguf',
  bench: '/test-models/intab-bench-q8_0.gguf',
  // The bench model quantized by llama-quantize from F16 (scripts/llama-quantize.mjs, issue 47), for
  // bench/wllama-quants.mjs; bench/run.mjs copies them in only when that section runs.
  q4_k_m: '/test-models/intab-bench-q4_k_m.gguf',
  q4_0: '/test-models/intab-bench-q4_0.gguf',
  q6_k: '/test-models/intab-bench-q6_k.gguf',
} as const;
type ModelName = keyof typeof MODELS;
const CONTEXT = 8192;
/**
 * `#threads=N` fixes llama.cpp's threads on both sides. Without it intab is given none (its default,
 * no tuning: every core when the page is cross-origin isolated, else 1) and the direct side takes the
 * same count.
 */
const hash = new URLSearchParams(location.hash.slice(1));
const asked = Number(hash.get('threads'));
/**
 * `#wasm=stock`: the direct side runs @wllama/wllama's own wasm (generic kernels) instead of intab's
 * SIMD build (scripts/build-wasm.mjs), for the before/after figures of issue 34.
 */
const directWasm = hash.get('wasm') === 'stock' ? 'stock' : 'simd';
const SIMD = {
  wasmPath: new URL('../wasm/simd/wllama.wasm', import.meta.url).href,
  jsPath: new URL('../wasm/simd/wllama.js', import.meta.url).href,
  compat: true,
};
const threads = asked > 0 ? asked : defaultThreads();

const intab = startIntab({
  wllama: {
    stallTimeoutMs: 300_000,
    loadTimeoutMs: 300_000,
    models: Object.entries(MODELS).map(([id, url]) => ({
      id,
      url,
      contextSize: CONTEXT,
      device: 'cpu' as const,
      ...(asked > 0 ? { threads } : {}),
    })),
  },
});

/**
 * The page's own wllama instances, by slot (the model's name unless the settings study loads several
 * of one model side by side), with the settings each was loaded with.
 */
const direct = new Map<string, { wllama: Wllama; key: string }>();

/**
 * How the direct side loads llama.cpp: the same parameters as intab (`loadParams`, intab's default
 * threads) unless the settings study asks for others (threads, KV cache type, flash attention).
 */
export interface DirectSettings {
  threads?: number;
  extra?: Partial<LoadModelParams>;
}

/** One generation, timed: first and last token from `t0`, tokens, prompt tokens. */
export interface Run {
  firstMs: number;
  lastMs: number;
  tokens: number;
  promptTokens: number;
  /** Prompt tokens llama.cpp found in its KV cache (a repeated prompt), where it says. */
  cachedTokens?: number;
  text: string;
}

async function loadDirect(
  model: ModelName,
  settings: DirectSettings = {},
  slot: string = model,
): Promise<void> {
  const key = JSON.stringify([model, settings]);
  const loaded = direct.get(slot);
  if (loaded?.key === key) return;
  if (loaded) await unloadDirect(slot);
  const wllama = new Wllama(
    { default: new URL('@wllama/wllama/esm/wasm/wllama.wasm', import.meta.url).href },
    // Logs cross to this page as intab's do to its engine worker (which keeps them for errors).
    { logger: { debug: () => {}, log: () => {}, warn: () => {}, error: () => {} } },
  );
  wllama.setCompat(null);
  // As intab's engine does for a CPU model (src/engine/wllama/jobs/llama-start.ts).
  if (directWasm === 'simd') wllama.getWorkerResources = () => SIMD;
  const blob = await (await fetch(MODELS[model])).blob();
  await wllama.loadModel(
    [blob],
    loadParams({
      contextSize: CONTEXT,
      device: 'cpu',
      threads: settings.threads ?? threads,
      embeddings: false,
      ...(settings.extra ? { extra: settings.extra } : {}),
    }),
  );
  direct.set(slot, { wllama, key });
}

/** Ends the page's own llama.cpp in `slot` (its worker and threads go). */
async function unloadDirect(slot: string): Promise<void> {
  const loaded = direct.get(slot);
  direct.delete(slot);
  await loaded?.wllama.exit().catch(() => {});
}

async function loadIntab(model: ModelName): Promise<void> {
  await intab.ready;
  await intab.loadModel(model);
}

/** The same chat request straight to wllama (the instance in `slot`), streamed. */
async function directRun(slot: string, prompt: string, tokens: number): Promise<Run> {
  const wllama = (direct.get(slot) as { wllama: Wllama }).wllama;
  const out: Run = { firstMs: -1, lastMs: -1, tokens: 0, promptTokens: 0, text: '' };
  const t0 = performance.now();
  await wllama.createChatCompletion({
    messages: [{ role: 'user', content: prompt }],
    max_tokens: tokens,
    temperature: 0,
    seed: 1,
    stream: true,
    stream_options: { include_usage: true },
    onData: (chunk: ChatCompletionChunk) => {
      const delta = chunk.choices[0]?.delta?.content;
      if (delta) {
        const now = performance.now() - t0;
        if (out.firstMs < 0) out.firstMs = now;
        out.lastMs = now;
        out.text += delta;
      }
      if (chunk.usage) {
        out.tokens = chunk.usage.completion_tokens;
        out.promptTokens = chunk.usage.prompt_tokens;
      }
      const cached = (chunk as { timings?: { cache_n?: number } }).timings?.cache_n;
      if (typeof cached === 'number') out.cachedTokens = cached;
    },
  } as never);
  return out;
}

/** The same request through intab: `POST /v1/responses` streamed via the service worker. */
async function intabRun(model: ModelName, prompt: string, tokens: number): Promise<Run> {
  const out: Run = { firstMs: -1, lastMs: -1, tokens: 0, promptTokens: 0, text: '' };
  const t0 = performance.now();
  const res = await fetch('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model,
      input: prompt,
      max_output_tokens: tokens,
      temperature: 0,
      stream: true,
      store: false,
    }),
  });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
      const data = frame
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('');
      if (!data) continue;
      const event = JSON.parse(data);
      if (event.type === 'response.output_text.delta') {
        const now = performance.now() - t0;
        if (out.firstMs < 0) out.firstMs = now;
        out.lastMs = now;
        out.text += event.delta;
      } else if (event.type === 'response.completed' || event.type === 'response.incomplete') {
        out.tokens = event.response.usage.output_tokens;
        out.promptTokens = event.response.usage.input_tokens;
        out.cachedTokens = event.response.usage.input_tokens_details?.cached_tokens;
      } else if (event.type === 'response.failed') throw new Error(JSON.stringify(event.response.error));
    }
  }
  return out;
}

(window as unknown as { wllamaBench: unknown }).wllamaBench = {
  ready: intab.ready,
  loadDirect,
  unloadDirect,
  loadIntab,
  directRun,
  intabRun,
  threads: () => ({ threads, isolated: crossOriginIsolated, wasm: directWasm }),
};
