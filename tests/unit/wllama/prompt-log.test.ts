/**
 * `logPrompts` (issue 33: the e2e template tests compare the prompt llama.cpp read, not its token
 * count): the engine asks llama.cpp for `verbose` only when it is on, logs the prompt from the
 * `__verbose` object llama.cpp puts on its final result, and never lets it into the reply.
 */
import type { ChatCompletionChunk } from '@wllama/wllama/esm/index.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PROMPT_LOG_PREFIX } from '../../../src/engine/wllama/prompt-log';
import { generateRequest } from '../../helpers/generate-request';
import { fakeWllamaEngine, runEngine } from '../../helpers/wllama-engine-rig';
import { FakeWllama } from '../../helpers/wllama-fakes';

const PROMPT = '<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi "there"<|eot_id|>';

/** A fake llama.cpp that, asked for `verbose`, adds `__verbose.prompt` to its finishing chunk. */
class VerboseFake extends FakeWllama {
  override async createChatCompletion(options: Parameters<FakeWllama['createChatCompletion']>[0]) {
    // llama.cpp's JSON has more than wllama's chunk type lists.
    const verbose = (c: ChatCompletionChunk) =>
      ({ ...c, __verbose: { prompt: PROMPT } }) as ChatCompletionChunk;
    const onData = (c: ChatCompletionChunk) =>
      options.onData(options.verbose === true && c.choices[0]?.finish_reason ? verbose(c) : c);
    return super.createChatCompletion({ ...options, onData });
  }
}

/** One generation on a `VerboseFake`: the parameters llama.cpp got, the reply, the prompt lines. */
async function generate(logPrompts: boolean) {
  const debug = vi.spyOn(console, 'debug').mockImplementation(() => {});
  const fake = new VerboseFake({ tokens: ['Hel', 'lo'] });
  const { engine } = fakeWllamaEngine({ logPrompts, createWllama: () => fake });
  const chunks = await runEngine(engine, generateRequest({ model: 'm' }));
  const lines = debug.mock.calls.map((c) => String(c[0])).filter((l) => l.startsWith(PROMPT_LOG_PREFIX));
  return { params: fake.calls[0]?.params, chunks, lines };
}

afterEach(() => vi.restoreAllMocks());

describe('wllama logPrompts', () => {
  it('asks llama.cpp for verbose and logs the prompt it read, as JSON, outside the reply', async () => {
    const { params, chunks, lines } = await generate(true);
    expect(params?.verbose).toBe(true);
    expect(lines).toEqual([`${PROMPT_LOG_PREFIX} "m" ${JSON.stringify(PROMPT)}`]);
    expect(JSON.stringify(chunks)).not.toContain('begin_of_text');
    const text = chunks.map((c) => (c.type === 'text' ? c.delta : '')).join('');
    expect(text).toBe('Hello');
  });

  it('is off by default: no verbose asked, nothing logged', async () => {
    const { params, lines } = await generate(false);
    expect(params).not.toHaveProperty('verbose');
    expect(lines).toEqual([]);
  });
});
