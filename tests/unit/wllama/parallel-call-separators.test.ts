/**
 * Issue 44 item 2 on wllama: the grammar joined parallel calls with a newline for every format
 * without a leading separator, so Ministral 3's two calls as its published template (and intab's
 * history) writes them, `[TOOL_CALLS]a[ARGS]{…}[TOOL_CALLS]b[ARGS]{…}`, were refused. Each format now
 * says what goes between its calls; every family's grammar takes two calls as its history writes them.
 */
import { describe, expect, it } from 'vitest';
import { familyOf } from '../../../src/engine/tool-formats';
import type { EngineChunk, FunctionToolSpec, GenerateRequest } from '../../../src/engine/types';
import { ReplyAssembler } from '../../../src/engine/webllm/webllm-reply';
import { planWllamaRequest } from '../../../src/engine/wllama/wllama-request';
import { callsOf } from '../../helpers/engine-chunks';
import { gbnfMatches } from '../../helpers/gbnf-match';
import { generateRequest } from '../../helpers/generate-request';

const MINISTRAL = 'Ministral-3-3B-Reasoning-2512';
const weather: FunctionToolSpec = {
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: true,
};

const plan = (model: string, over: Partial<GenerateRequest>) =>
  planWllamaRequest(generateRequest({ model, tools: [weather], parallelToolCalls: true, ...over }), {
    family: familyOf(model),
    invalidUtf8: [],
  });

async function grammarOf(model: string, over: Partial<GenerateRequest>): Promise<string> {
  return (await plan(model, over)).params.grammar as string;
}

const TWO = '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]get_weather[ARGS]{"city": "Rome"}';

describe('parallel calls are joined as each template joins them (issue 44 item 2)', () => {
  it.each([
    ['required', 'required' as const],
    ['auto', 'auto' as const],
  ])('Ministral 3 under %s: two calls back to back, as the template writes them', async (_, toolChoice) => {
    const g = await grammarOf(MINISTRAL, { toolChoice });
    expect(gbnfMatches(g, TWO)).toBe(true);
    expect(gbnfMatches(g, `[THINK]Two cities.[/THINK]${TWO}`)).toBe(true);
    // Each call is still held to the schema.
    expect(gbnfMatches(g, `${TWO}[TOOL_CALLS]get_weather[ARGS]{"city": 3}`)).toBe(false);
  });

  it('Ministral 3: the back-to-back calls are read as two calls', async () => {
    const r = new ReplyAssembler((await plan(MINISTRAL, { toolChoice: 'required' })).reply);
    const out: EngineChunk[] = [];
    for (const ch of TWO) out.push(...r.push(ch));
    out.push(...r.finish('stop', { prompt_tokens: 1, completion_tokens: 1 }));
    expect(callsOf(out)).toEqual([
      { name: 'get_weather', arguments: '{"city":"Paris"}' },
      { name: 'get_weather', arguments: '{"city":"Rome"}' },
    ]);
  });

  // Mistral v0.3 writes every call in one list (its history adds the call ids), so it has no separator.
  it.each([
    ['Ministral-3-3B-Reasoning-2512', {}],
    ['Qwen2.5-7B-Instruct', {}],
    // Thinking off: the reply is then the calls from its first token.
    ['Qwen3.5-4B', { reasoningEffort: 'none' }],
    ['Hermes-3-Llama-3.1-8B', {}],
    ['Phi-4-mini-instruct', {}],
    ['Llama-3.2-1B-Instruct', {}],
  ] as const)('%s: the grammar takes two calls as the family writes them in history', async (model, over) => {
    const calls = ['Paris', 'Rome'].map((city, i) => ({
      name: 'get_weather',
      arguments: JSON.stringify({ city }),
      callId: `call${i}`,
    }));
    const written = familyOf(model).tools.renderCalls(calls);
    expect(gbnfMatches(await grammarOf(model, { toolChoice: 'required', ...over }), written)).toBe(true);
  });
});
