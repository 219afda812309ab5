/**
 * The llama.cpp engine's pure pieces: chat-template messages in each family's format, the request
 * plan (option mapping, grammar, logprobs guard), family detection from a GGUF's chat template, the
 * tokens that are not valid UTF-8, error mapping, the GGUF header reader, the bounded chunk queue.
 */
import llama3Tokenizer from 'llama3-tokenizer-js';
import { describe, expect, it } from 'vitest';
import { LLAMA3_CHAT_TEMPLATE } from '../../../scripts/build-test-gguf.mjs';
import { ApiError } from '../../../src/common/api-error';
import { familyOf } from '../../../src/engine/tool-formats';
import { mistralCallId } from '../../../src/engine/tool-formats/mistral';
import { ChunkQueue, TimeoutError, withTimeout } from '../../../src/engine/wllama/chunk-queue';
import { detectFamily } from '../../../src/engine/wllama/gguf-family';
import { GgufFormatError, parseGgufHeader, readGgufHeader } from '../../../src/engine/wllama/gguf-header';
import { LlamaLog } from '../../../src/engine/wllama/llama-log';
import { toTemplateMessages } from '../../../src/engine/wllama/template-messages';
import { byteLevelBytes, invalidUtf8Tokens } from '../../../src/engine/wllama/utf8-tokens';
import {
  isInstanceDead,
  mapGenerateError,
  mapLoadError,
  overflowTokens,
} from '../../../src/engine/wllama/wllama-errors';
import { loadParams } from '../../../src/engine/wllama/wllama-instance';
import {
  ANY_TEXT_GRAMMAR,
  planWllamaRequest,
  toTokenLogprobs,
} from '../../../src/engine/wllama/wllama-request';
import { gbnfMatches } from '../../helpers/gbnf-match';
import { generateRequest } from '../../helpers/generate-request';
import { ggufBytes } from '../../helpers/tiny-gguf';

const llama3 = familyOf('Llama-3-8B-Instruct');

const lookup = {
  name: 'lookup',
  description: 'Find a record',
  parameters: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
  strict: true,
};

describe('chat-template messages', () => {
  it('puts one system message first, with the Llama 3 tool section before the caller text', () => {
    const out = toTemplateMessages(
      [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Find 4' },
      ],
      { family: llama3, system: ['Answer in JSON.'], toolSection: 'TOOLS', modelId: 'm' },
    );
    expect(out).toEqual([
      { role: 'system', content: `TOOLS${llama3.tools.separator ?? '\n\n'}Be brief.\n\nAnswer in JSON.` },
      { role: 'user', content: 'Find 4' },
    ]);
  });

  it('writes past calls in the family format and results as a user turn (Llama 3) or raw tool turns (3.1)', () => {
    const history = [
      { role: 'user' as const, content: 'Find 4' },
      {
        role: 'assistant' as const,
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function' as const, function: { name: 'lookup', arguments: '{"id":4}' } },
        ],
      },
      { role: 'tool' as const, content: '{"name":"four"}', tool_call_id: 'c1', name: 'lookup' },
    ];
    const v3 = toTemplateMessages(history, { family: llama3, system: [], toolSection: null, modelId: 'm' });
    expect(v3[1]).toEqual({ role: 'assistant', content: '{"name": "lookup", "parameters": {"id": 4}}' });
    const result = llama3.tools.renderResults([{ name: 'lookup', callId: 'c1', content: '{"name":"four"}' }]);
    expect(v3[2]).toEqual({ role: 'user', content: result });
    const v31 = toTemplateMessages(history, {
      family: familyOf('Llama-3.1-8B'),
      system: [],
      toolSection: null,
      modelId: 'm',
    });
    // 3.1's template writes the tool turn itself (`| tojson`): it gets the raw result (issue 28 defect 4).
    expect(v31[2]).toEqual({ role: 'tool', content: '{"name":"four"}', tool_call_id: mistralCallId('c1') });
  });

  it('merges turns of one role, and refuses a history that ends with the assistant or holds images', () => {
    const merged = toTemplateMessages(
      [
        { role: 'user', content: 'a' },
        { role: 'user', content: [{ type: 'text', text: 'b' }] },
      ],
      { family: llama3, system: [], toolSection: null, modelId: 'm' },
    );
    expect(merged).toEqual([{ role: 'user', content: 'a\n\nb' }]);
    const opts = { family: llama3, system: [], toolSection: null, modelId: 'm' };
    expect(() => toTemplateMessages([{ role: 'assistant', content: 'x' }], opts)).toThrow(ApiError);
    expect(() =>
      toTemplateMessages(
        [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:,' } }] }],
        opts,
      ),
    ).toThrow(/image/);
  });

  it('puts Mistral tools at the start of the last user turn', () => {
    const out = toTemplateMessages(
      [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'second' },
      ],
      {
        family: familyOf('Mistral-7B-Instruct-v0.3'),
        system: [],
        toolSection: '[AVAILABLE_TOOLS] [][/AVAILABLE_TOOLS]',
        modelId: 'm',
      },
    );
    expect(out[0]).toEqual({ role: 'user', content: 'first' });
    expect(out[2]).toEqual({ role: 'user', content: '[AVAILABLE_TOOLS] [][/AVAILABLE_TOOLS]second' });
  });
});

describe('the request plan', () => {
  const runtime = { family: llama3, invalidUtf8: [7, 9] };

  it('maps sampling options, seed, stop and max tokens, and asks for usage', async () => {
    const { params } = await planWllamaRequest(
      generateRequest({ temperature: 0.2, topP: 0.9, seed: 42, stop: ['END'], maxOutputTokens: 30 }),
      runtime,
    );
    expect(params).toMatchObject({
      temperature: 0.2,
      top_p: 0.9,
      seed: 42,
      stop: ['END'],
      max_tokens: 30,
      stream_options: { include_usage: true },
    });
    expect(params.grammar).toBe(ANY_TEXT_GRAMMAR);
    const bare = (await planWllamaRequest(generateRequest(), runtime)).params;
    expect(bare).not.toHaveProperty('temperature');
    expect(bare).not.toHaveProperty('seed');
  });

  it('teaches tools in the system message and holds required calls to a grammar, never passing llama.cpp tools', async () => {
    const plan = await planWllamaRequest(
      generateRequest({ tools: [lookup], toolChoice: 'required' }),
      runtime,
    );
    expect(plan.params).not.toHaveProperty('tools');
    expect(String(plan.params.messages[0]?.content)).toContain('"name": "lookup"');
    expect(gbnfMatches(plan.params.grammar as string, '{"name": "lookup", "parameters": {"id": 3}}')).toBe(
      true,
    );
    expect(plan.reply).toMatchObject({ format: llama3.tools, toolNames: ['lookup'] });
    const none = await planWllamaRequest(generateRequest({ tools: [lookup], toolChoice: 'none' }), runtime);
    expect(none.params.grammar).toBe(ANY_TEXT_GRAMMAR);
    expect(none.reply.format).toBeNull();
  });

  it('asks for JSON in words and by grammar', async () => {
    const format = {
      type: 'json_schema' as const,
      name: 'x',
      schema: { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] },
      strict: true,
    };
    const { params } = await planWllamaRequest(generateRequest({ format }), runtime);
    expect(params.messages[0]).toMatchObject({ role: 'system' });
    expect(String(params.messages[0]?.content)).toMatch(/JSON only/);
    expect(gbnfMatches(params.grammar as string, '{"a": 1}')).toBe(true);
  });

  it('refuses an unenforceable schema with a 400 on text.format.schema', async () => {
    const format = {
      type: 'json_schema' as const,
      name: 'x',
      schema: { type: 'object', not: {} },
      strict: true,
    };
    try {
      await planWllamaRequest(generateRequest({ format }), runtime);
      expect.unreachable();
    } catch (err) {
      expect(err).toMatchObject({ status: 400, param: 'text.format.schema', code: 'unsupported_value' });
    }
  });

  it('with logprobs, bans the non-UTF-8 tokens and reads post-sampling alternatives (capped at 20)', async () => {
    const { params, topLogprobs } = await planWllamaRequest(generateRequest({ topLogprobs: 25 }), runtime);
    expect(topLogprobs).toBe(20);
    expect(params).toMatchObject({ logprobs: true, top_logprobs: 20, post_sampling_probs: true });
    expect(params.logit_bias).toEqual({ 7: false, 9: false });
    expect((await planWllamaRequest(generateRequest({ topLogprobs: 0 }), runtime)).params.top_logprobs).toBe(
      1,
    );
  });

  it('turns thinking off through the template for Qwen3 at effort none, and leaves room for it otherwise', async () => {
    const qwen3 = { family: familyOf('Qwen3-8B'), invalidUtf8: [] };
    const off = await planWllamaRequest(generateRequest({ reasoningEffort: 'none' }), qwen3);
    expect(off.params.chat_template_kwargs).toEqual({ enable_thinking: false });
    expect(off.reply.reasoning).toBeNull();
    const on = await planWllamaRequest(generateRequest({ tools: [lookup], toolChoice: 'required' }), qwen3);
    expect(on.reply.reasoning).toEqual(familyOf('Qwen3-8B').reasoning);
    expect(on.params.grammar).toMatch(/think/);
  });

  it('reads llama.cpp logprobs in either shape', () => {
    expect(
      toTokenLogprobs(
        [
          {
            token: 'a',
            bytes: [97],
            prob: 0.5,
            top_probs: [
              { token: 'a', bytes: [97], prob: 0.5 },
              { token: 'b', prob: 0 },
            ],
          },
        ],
        1,
      ),
    ).toEqual([
      {
        token: 'a',
        logprob: Math.log(0.5),
        bytes: [97],
        top_logprobs: [{ token: 'a', logprob: Math.log(0.5), bytes: [97] }],
      },
    ]);
    expect(toTokenLogprobs([{ token: 'z', logprob: -1, top_logprobs: [] }], 5)?.[0]?.logprob).toBe(-1);
    expect(toTokenLogprobs([{ token: 'z', prob: 0 }], 0)?.[0]?.logprob).toBe(-9999);
  });
});

describe('model families from GGUF chat templates', () => {
  it('recognises each family by its template, else by name', () => {
    expect(detectFamily({ chatTemplate: LLAMA3_CHAT_TEMPLATE }).id).toBe('llama3');
    expect(detectFamily({ chatTemplate: '<|start_header_id|>…Environment: ipython' }).id).toBe('llama3.1');
    expect(detectFamily({ chatTemplate: '<|im_start|>…<tool_call>…<think>' }).id).toBe('qwen3');
    expect(detectFamily({ chatTemplate: '<|im_start|>…<tool_call>…' }).id).toBe('qwen2.5');
    expect(detectFamily({ chatTemplate: '<|im_start|>…<tool_call>…<function=…' }).id).toBe('qwen3.5');
    expect(detectFamily({ chatTemplate: '[AVAILABLE_TOOLS]…[INST]' }).id).toBe('mistral');
    expect(detectFamily({ chatTemplate: '<|tool_call|>…' }).id).toBe('phi4-mini');
    expect(detectFamily({ chatTemplate: '<｜User｜>…<｜Assistant｜>' }).id).toBe('deepseek-r1');
    expect(detectFamily({ chatTemplate: '<start_of_turn>', name: 'Llama 3.2 1B Instruct' }).id).toBe(
      'llama3.1',
    );
    expect(detectFamily({ chatTemplate: null, name: 'something else', id: 'x' }).id).toBe('other');
  });
});

describe('tokens that are not valid UTF-8 on their own', () => {
  it('decodes byte-level BPE pieces', () => {
    expect([...(byteLevelBytes('Ġhi') as Uint8Array)]).toEqual([32, 104, 105]);
    expect(byteLevelBytes('<|eot_id|>')).not.toBeNull();
    expect(byteLevelBytes('ĠÄŁ')).not.toBeNull();
  });

  it('finds the 1,352 of the Llama 3 vocabulary, and SentencePiece byte tokens', () => {
    const ids = invalidUtf8Tokens(llama3Tokenizer.vocabById, 'gpt2');
    expect(ids).toHaveLength(1352);
    for (const id of ids.slice(0, 50)) {
      const bytes = byteLevelBytes(llama3Tokenizer.vocabById[id] as string) as Uint8Array;
      expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes)).toThrow();
    }
    expect(invalidUtf8Tokens(['<0x41>', '<0xE2>', '▁hi', '<0x80>'], 'llama')).toEqual([1, 3]);
  });
});

describe('errors', () => {
  it("turns llama.cpp's context refusal into a 400 with the counts", () => {
    const err = new Error(
      'request (3010 tokens) exceeds the available context size (2048 tokens), try increasing it',
    );
    expect(overflowTokens(err)).toBe(3010);
    expect(mapGenerateError(err, 'tiny')).toMatchObject({
      status: 400,
      code: 'context_length_exceeded',
      param: 'input',
    });
  });

  it('a dead instance is a 500 model_crashed quoting llama.cpp, a silent one a 504', () => {
    const dead = Object.assign(new Error('(ABORT) '), { name: 'RuntimeError' });
    expect(isInstanceDead(dead)).toBe(true);
    const mapped = mapGenerateError(dead, 'tiny', 'Aborted()');
    expect(mapped).toMatchObject({ status: 500, code: 'model_crashed' });
    expect(mapped.message).toContain('llama.cpp said: Aborted()');
    expect(mapGenerateError(new TimeoutError('x'), 'tiny')).toMatchObject({
      status: 504,
      code: 'model_unresponsive',
    });
  });

  it('maps load failures: download, stall, bad file', () => {
    expect(mapLoadError(new TypeError('Failed to fetch'), 'm')).toMatchObject({
      status: 503,
      code: 'model_download_failed',
    });
    expect(mapLoadError(new TimeoutError('x'), 'm')).toMatchObject({
      status: 504,
      code: 'model_load_timeout',
    });
    expect(mapLoadError(new Error('boom'), 'm', 'llama_model_load: error loading model')).toMatchObject({
      status: 500,
      code: 'model_load_failed',
    });
  });

  it("keeps llama.cpp's log and finds the trouble and the device in it", () => {
    const log = new LlamaLog();
    log.logger.debug('load_tensors:          CPU model buffer size =    15.91 MiB');
    const mark = log.mark();
    log.logger.log('slot update');
    log.logger.error('[json.exception.type_error.316] invalid UTF-8 byte');
    expect(log.trouble(mark)).toBe('[json.exception.type_error.316] invalid UTF-8 byte');
    expect(log.device()).toBe('cpu');
    log.logger.debug('load_tensors:   WebGPU model buffer size =    15.91 MiB');
    expect(log.device()).toBe('webgpu');
  });
});

describe('GGUF header reader', () => {
  it('refuses a file that is not GGUF', async () => {
    await expect(readGgufHeader(new Blob([new Uint8Array(64)]))).rejects.toThrow(GgufFormatError);
  });

  it('reads more when the metadata is longer than the first window', async () => {
    const key = 'general.name';
    const value = 'x'.repeat(5000);
    const parts = ggufBytes([[key, value]]);
    const blob = new Blob([parts]);
    const header = await readGgufHeader(blob, 64);
    expect(header.metadata.get(key)).toBe(value);
    expect(() => parseGgufHeader(parts.subarray(0, 100))).toThrow();
  });
});

describe('engine plumbing', () => {
  it('loads with Jinja templates, raw output, bounded batches, and the chosen device', () => {
    expect(loadParams({ contextSize: 2048, device: 'cpu', threads: 2, embeddings: false })).toMatchObject({
      n_ctx: 2048,
      n_batch: 512,
      n_threads: 2,
      n_gpu_layers: 0,
      jinja: true,
      reasoning_format: 'none',
      skip_chat_parsing: true,
    });
    expect(loadParams({ contextSize: 1, device: 'webgpu', threads: 1, embeddings: 'mean' })).toMatchObject({
      n_gpu_layers: 999,
      embeddings: true,
      pooling_type: 'mean',
    });
  });

  it('a chunk queue reads in order, notices silence, ends, and counts what came after an abort', async () => {
    const q = new ChunkQueue<number>();
    q.push(1);
    expect(await q.next(10)).toEqual({ kind: 'item', value: 1 });
    expect(await q.next(20)).toEqual({ kind: 'timeout' });
    q.markAbort();
    q.push(2);
    expect(q.pushedAfterAbort).toBe(1);
    q.fail(new Error('x'));
    expect(await q.next(10)).toEqual({ kind: 'item', value: 2 });
    expect((await q.next(10)).kind).toBe('error');
    const ac = new AbortController();
    const waiting = new ChunkQueue<number>().next(10_000, ac.signal);
    ac.abort();
    expect(await waiting).toEqual({ kind: 'aborted' });
    await expect(withTimeout(new Promise(() => {}), 10, 'x')).rejects.toThrow(TimeoutError);
  });
});
