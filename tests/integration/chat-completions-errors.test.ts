/**
 * What `POST /v1/chat/completions` refuses, with OpenAI's status, `param` and code, and what it
 * accepts without effect on a local model.
 */
import { describe, expect, it } from 'vitest';
import { ScriptedEngine } from '../../src/engine/scripted/scripted-engine';
import type { ModelInfo } from '../../src/engine/types';
import { makeRig } from '../helpers/server';
import { expectError } from './create-helpers';

const user = [{ role: 'user', content: 'hi' }];
const ok = { model: 'scripted', messages: user };
const fn = (name: string) => ({ type: 'function', function: { name, parameters: { type: 'object' } } });
const call = (id: string) => ({ id, type: 'function', function: { name: 'f', arguments: '{}' } });

type Case = [name: string, body: Record<string, unknown>, param: string | null, code?: string];

const refused: Case[] = [
  ['an unknown parameter', { ...ok, foo: 1 }, 'foo', 'unknown_parameter'],
  ['no messages', { model: 'scripted' }, 'messages', 'missing_required_parameter'],
  ['empty messages', { model: 'scripted', messages: [] }, 'messages', 'array_below_min_length'],
  ['no model', { messages: user }, 'model', 'missing_required_parameter'],
  ['an unknown model', { ...ok, model: 'gpt-nope' }, 'model', 'model_not_found'],
  [
    'an unknown role',
    { ...ok, messages: [{ role: 'robot', content: 'x' }] },
    'messages[0].role',
    'invalid_value',
  ],
  [
    'an unknown message field',
    { ...ok, messages: [{ ...user[0], x: 1 }] },
    'messages[0].x',
    'unknown_parameter',
  ],
  ['temperature above 2', { ...ok, temperature: 2.5 }, 'temperature', 'decimal_above_max_value'],
  ['n > 1', { ...ok, n: 2 }, 'n', 'unsupported_value'],
  ['audio output', { ...ok, audio: { voice: 'alloy', format: 'mp3' } }, 'audio', 'unsupported_value'],
  ['audio modality', { ...ok, modalities: ['text', 'audio'] }, 'modalities', 'unsupported_value'],
  ['web search', { ...ok, web_search_options: {} }, 'web_search_options', 'unsupported_value'],
  ['deprecated functions', { ...ok, functions: [{ name: 'f' }] }, 'functions', 'unsupported_value'],
  ['logit_bias', { ...ok, logit_bias: { '50256': -100 } }, 'logit_bias', 'unsupported_value'],
  [
    'moderation',
    { ...ok, moderation: { model: 'omni-moderation-latest' } },
    'moderation',
    'unsupported_value',
  ],
  [
    'a custom tool whose grammar the subset cannot express',
    {
      ...ok,
      tools: [
        {
          type: 'custom',
          custom: {
            name: 'x',
            format: { type: 'grammar', grammar: { syntax: 'lark', definition: 'x: "a"' } },
          },
        },
      ],
    },
    'tools[0].custom.format.grammar.definition',
    'invalid_grammar',
  ],
  ['a bad tool name', { ...ok, tools: [fn('a b')] }, 'tools[0].function.name', 'invalid_value'],
  [
    'a named tool_choice not in tools',
    { ...ok, tools: [fn('f')], tool_choice: { type: 'function', function: { name: 'g' } } },
    'tool_choice',
    'invalid_value',
  ],
  ['tool_choice required without tools', { ...ok, tool_choice: 'required' }, 'tool_choice', 'invalid_value'],
  ['top_logprobs without logprobs', { ...ok, top_logprobs: 2 }, 'top_logprobs', 'invalid_value'],
  [
    'stream_options without stream',
    { ...ok, stream_options: { include_usage: true } },
    'stream_options',
    'invalid_value',
  ],
  [
    'more than 4 stop sequences',
    { ...ok, stop: ['a', 'b', 'c', 'd', 'e'] },
    'stop',
    'array_above_max_length',
  ],
  ['json_object without "json"', { ...ok, response_format: { type: 'json_object' } }, 'messages'],
  [
    'a tool message without a call',
    { ...ok, messages: [...user, { role: 'tool', tool_call_id: 'call_x', content: 'r' }] },
    'messages[1].role',
  ],
  [
    'a call without its tool message',
    { ...ok, messages: [...user, { role: 'assistant', tool_calls: [call('call_1')] }, ...user] },
    'messages[1].role',
  ],
  [
    'audio input',
    {
      ...ok,
      messages: [
        { role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AA==', format: 'wav' } }] },
      ],
    },
    'messages[0].content[0].type',
    'unsupported_value',
  ],
  [
    'a PDF file part',
    {
      ...ok,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,AA==' } },
          ],
        },
      ],
    },
    'messages[0].content[0].file.file_data',
    'unsupported_file',
  ],
  [
    'a function message',
    { ...ok, messages: [{ role: 'function', name: 'f', content: 'x' }] },
    'messages[0].role',
    'unsupported_value',
  ],
];

describe('refused with 400 and param', () => {
  it.each(refused)('%s', async (_name, body, param, code) => {
    const { call } = makeRig();
    await expectError(await call('POST', '/chat/completions', body), 400, param, code);
  });

  it('refuses messages past the context window with context_length_exceeded', async () => {
    const { call } = makeRig();
    const long = Array.from({ length: 4100 }, () => 'word').join(' ');
    const message = await expectError(
      await call('POST', '/chat/completions', {
        model: 'scripted',
        messages: [{ role: 'user', content: long }],
      }),
      400,
      'messages',
      'context_length_exceeded',
    );
    expect(message).toMatch(
      /maximum context length is 4096 tokens\. However, your messages resulted in 4100 tokens/,
    );
  });

  it('refuses an embedding model, which cannot chat', async () => {
    const engine = new ScriptedEngine();
    const embedder: ModelInfo = {
      ...(engine.models()[0] as ModelInfo),
      id: 'embedder',
      capabilities: ['embeddings'],
    };
    engine.models = () => [embedder];
    const { call } = makeRig({ engine });
    for (const path of ['/chat/completions', '/responses']) {
      const body =
        path === '/responses' ? { model: 'embedder', input: 'hi' } : { model: 'embedder', messages: user };
      const message = await expectError(await call('POST', path, body), 400, 'model', 'unsupported_model');
      expect(message).toMatch(/'embedder' is an embedding model/);
    }
  });
});

describe('accepted without effect on a local model', () => {
  it('takes user, metadata, store, service_tier, seed, penalties, caching and prediction fields', async () => {
    const { client } = makeRig();
    const completion = await client.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'hi', name: 'ann' }],
      user: 'u1',
      safety_identifier: 's1',
      metadata: { app: 'intab' },
      store: true,
      service_tier: 'auto',
      seed: 7,
      frequency_penalty: 0.5,
      presence_penalty: -0.5,
      verbosity: 'low',
      prompt_cache_key: 'k',
      prompt_cache_retention: '24h',
      prediction: { type: 'content', content: 'You said: hi' },
      n: 1,
      modalities: ['text'],
      logit_bias: {},
      temperature: 0.2,
      top_p: 0.9,
      parallel_tool_calls: true,
    });
    expect(completion.choices[0]?.message.content).toBe('You said: hi');
    expect(completion.service_tier).toBe('default');
  });
});
