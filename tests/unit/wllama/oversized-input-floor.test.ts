/**
 * Issue 43, §3: 10 MB of input to a 2048-token llama.cpp model with `truncation: disabled` took more
 * than 5 s to answer: the count handed the whole prompt to llama.cpp, which tokenized all of it
 * before saying it overflowed. An input that cannot fit by its size alone (no token covers more bytes
 * than the vocabulary's longest spelling) is now refused without a llama.cpp run. Counted, not timed:
 * the runs the fake llama.cpp sees.
 */
import type { ChatCompletionChunk } from '@wllama/wllama/esm/index.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/common/api-error';
import { fitContext } from '../../../src/core/responses/request/fit-context';
import type { ChatMessage, ModelInfo } from '../../../src/engine/types';
import { WllamaEngine } from '../../../src/engine/wllama';
import { longestTokenBytes, utf8Length } from '../../../src/engine/wllama/limits';
import { makeRig, storeContents } from '../../helpers/server';
import { tinyGguf } from '../../helpers/tiny-gguf';
import { FakeWllama } from '../../helpers/wllama-fakes';

const N_CTX = 2048;

/** llama.cpp as a count sees it: every prompt tokenized whole (1 token per 2 bytes), then judged. */
class TokenizingFake extends FakeWllama {
  runs = 0;
  bytesTokenized = 0;
  override getLoadedContextInfo() {
    return { ...super.getLoadedContextInfo(), n_ctx: N_CTX };
  }
  override async createChatCompletion(
    options: Parameters<FakeWllama['createChatCompletion']>[0],
  ): Promise<void> {
    this.runs++;
    let tokens = 8;
    for (const m of options.messages as { content: string }[]) {
      const bytes = new TextEncoder().encode(m.content).length;
      this.bytesTokenized += bytes;
      tokens += Math.ceil(bytes / 2) + 4;
    }
    if (tokens > N_CTX)
      throw new Error(`the request (${tokens} tokens) exceeds the available context size (${N_CTX} tokens)`);
    options.onData({
      choices: [],
      usage: { prompt_tokens: tokens, completion_tokens: 1 },
    } as never as ChatCompletionChunk);
  }
}

async function loaded(tokens?: string[]) {
  const fakes: TokenizingFake[] = [];
  const engine = new WllamaEngine({
    models: [{ id: 'm', files: [tinyGguf(tokens ? { tokens } : {})] }],
    stallTimeoutMs: 60_000,
    hasWebGpuF16: async () => false,
    createWllama: () => {
      const fake = new TokenizingFake();
      fakes.push(fake);
      return fake;
    },
  });
  await engine.load('m');
  const model = { id: 'm', contextWindow: N_CTX } as ModelInfo;
  return { engine, model, fake: () => fakes[0] as TokenizingFake };
}

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('an input too big to fit, by its size alone', () => {
  it('10 MB with truncation disabled: 400 context_length_exceeded, llama.cpp never runs', async () => {
    const { engine, model, fake } = await loaded();
    const messages: ChatMessage[] = [{ role: 'user', content: 'lorem ipsum '.repeat(873_814) }];
    const err = await refusal(fitContext(messages, { tools: [], model, truncation: 'disabled', engine }));
    expect(err.status).toBe(400);
    expect(err.code).toBe('context_length_exceeded');
    expect(err.param).toBe('input');
    expect(fake().runs).toBe(0);
  });

  it('auto truncation of one huge last turn: the same 400, still no run', async () => {
    const { engine, model, fake } = await loaded();
    const messages: ChatMessage[] = [
      { role: 'user', content: 'earlier' },
      { role: 'assistant', content: 'reply' },
      { role: 'user', content: 'x'.repeat(2_000_000) },
    ];
    const err = await refusal(fitContext(messages, { tools: [], model, truncation: 'auto', engine }));
    expect(err.code).toBe('context_length_exceeded');
    expect(fake().runs).toBe(0);
  });

  it('an input whose size allows it to fit is counted by llama.cpp (the floor refuses nothing that may fit)', async () => {
    // Tokens up to 3 bytes spelled ('Ġb'): 5,100 bytes may be as few as 1,700 tokens
    // (it is 2,550 here), so only llama.cpp can say it does not fit.
    const { engine, model, fake } = await loaded();
    const messages: ChatMessage[] = [{ role: 'user', content: 'ab '.repeat(1_700) }];
    const err = await refusal(fitContext(messages, { tools: [], model, truncation: 'disabled', engine }));
    expect(err.code).toBe('context_length_exceeded');
    expect(fake().runs).toBe(1);
  });

  it('a vocabulary with a long token lowers the floor accordingly', async () => {
    const long = '-'.repeat(64);
    const { engine, model, fake } = await loaded(['a', 'Ġb', long]);
    // 100 KB of dashes: 1,563 tokens of 64 dashes may fit 2048, so llama.cpp must count it.
    const messages: ChatMessage[] = [{ role: 'user', content: '-'.repeat(100_000) }];
    await refusal(fitContext(messages, { tools: [], model, truncation: 'disabled', engine }));
    expect(fake().runs).toBe(1);
  });
});

describe('tokenFloor and its measures', () => {
  it('utf8Length is TextEncoder’s length, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(utf8Length(s)).toBe(new TextEncoder().encode(s).length);
      }),
    );
  });

  it('longestTokenBytes is the longest spelling in bytes', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme' }), { minLength: 1 }), (vocab) => {
        const best = Math.max(...vocab.map((t) => new TextEncoder().encode(t).length));
        expect(longestTokenBytes(vocab)).toBe(best > 0 ? best : null);
      }),
    );
  });
});

describe('through POST /v1/responses', () => {
  it('10 MB of input to a 2048-token model: the 400 context_length_exceeded, no llama.cpp run, store untouched', async () => {
    const { engine, fake } = await loaded();
    const { call, store } = makeRig({ engine });
    const before = await storeContents(store);
    const res = await call('POST', '/responses', {
      model: 'm',
      input: 'lorem ipsum '.repeat(873_814),
      truncation: 'disabled',
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; param: string } };
    expect(body.error).toMatchObject({ code: 'context_length_exceeded', param: 'input' });
    expect(fake().runs).toBe(0);
    expect(await storeContents(store)).toEqual(before);
  });
});
