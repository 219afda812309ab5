/**
 * The llama.cpp engine's request plan: option mapping, tools taught in the system message, grammar,
 * the logprobs guard, thinking through the template, and llama.cpp's logprobs read back.
 */
import { describe, expect, it } from 'vitest';
import { familyOf } from '../../../src/engine/tool-formats';
import {
  ANY_TEXT_GRAMMAR,
  planWllamaRequest,
  toTokenLogprobs,
} from '../../../src/engine/wllama/wllama-request';
import { gbnfMatches } from '../../helpers/gbnf-match';
import { generateRequest } from '../../helpers/generate-request';

const llama3 = familyOf('Llama-3-8B-Instruct');

const lookup = {
  name: 'lookup',
  description: 'Find a record',
  parameters: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
  strict: true,
};

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
