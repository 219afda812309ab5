/**
 * Issue 44, item 4, in the core: every `tool_choice` hands the engine every tool the request
 * declares (the prompt shows them all, as llama.cpp does), with the choice and `allowed_tools`
 * saying only which of them the reply may call. `none` used to send no tool, a named choice and
 * `allowed_tools` only their own.
 */
import { describe, expect, it } from 'vitest';
import { callableTools } from '../../src/engine/tool-formats/request-plan';
import type { GenerateRequest } from '../../src/engine/types';
import { makeRig } from '../helpers/server';
import { CountingEngine } from './file-search-rig';

const params = { type: 'object', properties: {}, additionalProperties: false };

/** What the engine was asked: the tools shown, the choice, and the tools the reply may call. */
const seen = (r: GenerateRequest | undefined) => {
  if (!r) throw new Error('no request');
  return {
    shown: r.tools.map((t) => t.name),
    choice: r.toolChoice,
    callable: callableTools(r).map((t) => t.name),
  };
};

describe('responses.create: one tool list for every tool_choice', () => {
  const tools = ['f', 'g'].map((name) => ({
    type: 'function' as const,
    name,
    parameters: params,
    strict: true,
  }));

  it.each([
    ['none', 'none', []],
    ['a named tool', { type: 'function', name: 'g' }, ['g']],
    [
      'allowed_tools',
      { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'g' }] },
      ['g'],
    ],
    ['required', 'required', ['f', 'g']],
  ] as const)('%s', async (_name, tool_choice, callable) => {
    const engine = new CountingEngine();
    const { client } = makeRig({ engine });
    await client.responses.create({
      model: 'scripted',
      input: 'hi',
      tools,
      tool_choice: tool_choice as never,
    });
    expect(seen(engine.requests[0])).toMatchObject({ shown: ['f', 'g'], callable });
  });
});

describe('chat.completions: one tool list for every tool_choice', () => {
  const tools = ['f', 'g'].map((name) => ({
    type: 'function' as const,
    function: { name, parameters: params },
  }));

  it.each([
    ['none', 'none', []],
    ['a named tool', { type: 'function', function: { name: 'g' } }, ['g']],
    [
      'allowed_tools',
      {
        type: 'allowed_tools',
        allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'g' } }] },
      },
      ['g'],
    ],
  ] as const)('%s', async (_name, tool_choice, callable) => {
    const engine = new CountingEngine();
    const { client } = makeRig({ engine });
    await client.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'hi' }],
      tools,
      tool_choice: tool_choice as never,
    });
    expect(seen(engine.requests[0])).toMatchObject({ shown: ['f', 'g'], callable });
  });
});
