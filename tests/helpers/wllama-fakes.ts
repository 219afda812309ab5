/**
 * A fake `Wllama` for the engine's unit tests: streams scripted tokens through `onData` the way
 * wllama does (one poll per token, the abort signal checked before each poll), and can crash or
 * hang on demand. Real llama.cpp runs in tests/e2e/wllama-*.test.ts.
 */
import type { ChatCompletionChunk, LoadedContextInfo } from '@wllama/wllama/esm/index.js';
import type { WllamaLike } from '../../src/engine/wllama/wllama-options';

export type FakeMode = 'ok' | 'crash' | 'hang';

export interface FakeCall {
  params: Record<string, unknown>;
  /** Tokens produced after the abort signal was seen aborted. */
  afterAbort: number;
}

/**
 * @example
 * const fake = new FakeWllama({ tokens: ['Hel', 'lo'] });
 * new WllamaEngine({ createWllama: () => fake, fetchModel, models });
 */
export class FakeWllama implements WllamaLike {
  mode: FakeMode = 'ok';
  exited = false;
  loads = 0;
  readonly calls: FakeCall[] = [];
  tokenMs = 2;
  promptTokens = 12;
  cached = 0;
  /** The parameters of the last `loadModel` call (what llama.cpp would have been started with). */
  loadedWith: Record<string, unknown> | null = null;

  constructor(private readonly opts: { tokens?: string[]; logger?: { error(...a: unknown[]): void } } = {}) {}

  async loadModel(_blobs?: unknown, params?: Record<string, unknown>): Promise<void> {
    this.loads++;
    this.loadedWith = params ?? null;
  }

  async createChatCompletion(
    options: Record<string, unknown> & {
      abortSignal?: AbortSignal;
      onData: (c: ChatCompletionChunk) => void;
    },
  ): Promise<void> {
    const { onData, abortSignal, ...params } = options;
    const call: FakeCall = { params, afterAbort: 0 };
    this.calls.push(call);
    if (this.mode === 'hang') return new Promise(() => {});
    const tokens = this.opts.tokens ?? ['a', 'b', 'c'];
    const max = typeof params.max_tokens === 'number' ? params.max_tokens : tokens.length;
    let n = 0;
    for (; n < max; n++) {
      if (abortSignal?.aborted) throw Object.assign(new Error('Operation aborted'), { name: 'AbortError' });
      await new Promise((r) => setTimeout(r, this.tokenMs));
      if (this.mode === 'crash') {
        this.opts.logger?.error('GGML_ASSERT(n_tokens > 0) failed');
        throw Object.assign(new Error('(ABORT) '), { name: 'RuntimeError' });
      }
      if (abortSignal?.aborted) call.afterAbort++;
      onData(chunk({ content: tokens[n % tokens.length] as string }));
    }
    onData(chunk({}, n >= tokens.length && max > tokens.length ? 'stop' : 'length'));
    onData({
      ...chunk({}),
      choices: [],
      usage: {
        prompt_tokens: this.promptTokens,
        completion_tokens: n,
        total_tokens: this.promptTokens + n,
        prompt_tokens_details: { cached_tokens: this.cached, audio_tokens: 0 },
      },
      timings: { cache_n: this.cached, prompt_n: this.promptTokens - this.cached, predicted_n: n },
    } as unknown as ChatCompletionChunk);
  }

  async createEmbedding(options: { input: string | string[] }) {
    const text = String(options.input);
    return { data: [{ index: 0, embedding: [text.length, 1] }], usage: { prompt_tokens: text.length } };
  }

  getLoadedContextInfo(): LoadedContextInfo {
    return { n_ctx: 4096 } as LoadedContextInfo;
  }

  isMultithread(): boolean {
    return false;
  }

  getNumThreads(): number {
    return 1;
  }

  async exit(): Promise<void> {
    this.exited = true;
  }
}

function chunk(delta: { content?: string }, finish: 'stop' | 'length' | null = null): ChatCompletionChunk {
  return {
    id: '',
    object: 'chat.completion.chunk',
    created: 0,
    model: '',
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  };
}

/** A fake llama.cpp whose n-th completion writes `replies[n]`, a character per token, then stops. */
export class PassFake extends FakeWllama {
  constructor(private readonly replies: string[]) {
    super();
  }
  override async createChatCompletion(options: Parameters<FakeWllama['createChatCompletion']>[0]) {
    const { onData, abortSignal: _, ...params } = options;
    const reply = [...(this.replies[this.calls.length] ?? '')];
    this.calls.push({ params, afterAbort: 0 });
    const chunk = (delta: { content?: string }, finish: 'stop' | null = null) =>
      ({ choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] }) as never;
    for (const ch of reply) onData(chunk({ content: ch }));
    onData(chunk({}, 'stop'));
    onData({
      choices: [],
      usage: { prompt_tokens: this.promptTokens, completion_tokens: reply.length },
      timings: { cache_n: 0, prompt_n: this.promptTokens, predicted_n: reply.length },
    } as never);
  }
}
