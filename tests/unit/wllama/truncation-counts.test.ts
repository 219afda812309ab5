/**
 * Issue 38, §2: `truncation: "auto"` with 3,000 messages (214 KB) on wllama took over 8 s at load 7.
 * Each message was counted on its own (a template render each), and the search for the drop point
 * counted whole prompts whose every fitting one is a llama.cpp prefill. Counted here, not timed: the
 * renders (pace() calls: a render paces 3 times), the llama.cpp runs and, of those, the prefills.
 */
import type { ChatCompletionChunk } from '@wllama/wllama/esm/index.js';
import { describe, expect, it } from 'vitest';
import { fitContext } from '../../../src/core/responses/request/fit-context';
import type { ChatMessage, ModelInfo } from '../../../src/engine/types';
import { WllamaEngine } from '../../../src/engine/wllama';
import { countPaceCalls } from '../../helpers/pace-count';
import { tinyGguf } from '../../helpers/tiny-gguf';
import { FakeWllama } from '../../helpers/wllama-fakes';

const N_CTX = 4096;

/** llama.cpp as far as a count sees it: a prompt's tokens, an overflow error past the context. */
class TokenizingFake extends FakeWllama {
  runs = 0;
  prefills = 0;
  override async createChatCompletion(
    options: Parameters<FakeWllama['createChatCompletion']>[0],
  ): Promise<void> {
    this.runs++;
    const messages = options.messages as { content: string }[];
    // About 3 bytes a token, plus a message's markup: what a real tokenizer gives, not a byte bound.
    let tokens = 8;
    for (const m of messages) tokens += Math.ceil(new TextEncoder().encode(m.content).length / 3) + 4;
    if (tokens > N_CTX)
      throw new Error(`the request (${tokens} tokens) exceeds the available context size (${N_CTX} tokens)`);
    this.prefills++;
    options.onData({
      choices: [],
      usage: { prompt_tokens: tokens, completion_tokens: 1 },
    } as never as ChatCompletionChunk);
  }
}

describe('truncation: auto on wllama', () => {
  it('fits 3,000 messages (214 KB) with a few renders and prefills, none per message', async () => {
    const fakes: TokenizingFake[] = [];
    const engine = new WllamaEngine({
      models: [{ id: 'm', files: [tinyGguf()] }],
      stallTimeoutMs: 60_000,
      hasWebGpuF16: async () => false,
      createWllama: () => {
        const fake = new TokenizingFake();
        fakes.push(fake);
        return fake;
      },
    });
    await engine.load('m');
    const n = 3000;
    const messages: ChatMessage[] = Array.from({ length: n }, (_, i) => ({
      role: i % 2 ? 'assistant' : 'user',
      content: `message ${i}: ${'lorem ipsum dolor sit amet '.repeat(2)}`.padEnd(71, '.'),
    }));
    expect(JSON.stringify(messages).length).toBeGreaterThan(200_000);
    const model = { id: 'm', contextWindow: N_CTX } as ModelInfo;
    const { value: kept, calls } = await countPaceCalls(() =>
      fitContext(messages, { tools: [], model, truncation: 'auto', engine }),
    );
    const fake = fakes[0] as TokenizingFake;
    // The fewest oldest messages dropped: the kept ones fit, one more would not.
    const tokensOf = (list: ChatMessage[]) =>
      8 +
      list.reduce((t, m) => t + Math.ceil(new TextEncoder().encode(m.content as string).length / 3) + 4, 0);
    expect(tokensOf(kept)).toBeLessThanOrEqual(N_CTX);
    expect(tokensOf(messages.slice(n - kept.length - 1))).toBeGreaterThan(N_CTX);
    expect(kept.at(-1)).toBe(messages.at(-1));
    // Before: a render per message until the byte bounds' running sum fit (1,547 paced steps), then
    // 14 llama.cpp runs, 3 of them prefills. Now: 11 paced steps, 3 runs, 1 prefill.
    expect(calls).toBeLessThanOrEqual(3 * 2 * Math.log2(n) + 12);
    expect(fake.runs).toBeLessThanOrEqual(8);
    expect(fake.prefills).toBeLessThanOrEqual(2);
  });
});
