/**
 * Issue 28 defect 3 on wllama: Ministral 3 Reasoning's default system prompt asks for
 * `[THINK]…[/THINK]` first, so its grammar lets the block come before a forced call or a JSON
 * answer (and leaves it optional). Before, the call or the JSON was forced from the first token.
 */
import { describe, expect, it } from 'vitest';
import { familyOf } from '../../../src/engine/tool-formats';
import type { EngineChunk, FunctionToolSpec, GenerateRequest } from '../../../src/engine/types';
import { ReplyAssembler } from '../../../src/engine/webllm/webllm-reply';
import { planWllamaRequest } from '../../../src/engine/wllama/wllama-request';
import { gbnfMatches } from '../../helpers/gbnf-match';
import { generateRequest } from '../../helpers/generate-request';

const MODEL = 'Ministral-3-3B-Reasoning-2512';
const weather: FunctionToolSpec = {
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: true,
};
const JSON_FORMAT: GenerateRequest['format'] = {
  type: 'json_schema',
  name: 'a',
  schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
  strict: true,
};

const request = (over: Partial<GenerateRequest>) =>
  generateRequest({ model: MODEL, parallelToolCalls: false, ...over });

const plan = (over: Partial<GenerateRequest>) =>
  planWllamaRequest(request(over), { family: familyOf(MODEL), invalidUtf8: [] });

describe('Ministral 3 Reasoning may think first on wllama (issue 28 defect 3)', () => {
  const call = '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}';

  it.each([
    ['required', 'required' as const],
    ['a named tool', { name: 'get_weather' } as const],
  ])('under %s: the think block, then the call; or the call alone', async (_, toolChoice) => {
    const grammar = (await plan({ tools: [weather], toolChoice })).params.grammar as string;
    expect(gbnfMatches(grammar, `[THINK]hm, Paris.[/THINK]${call}`)).toBe(true);
    expect(gbnfMatches(grammar, call)).toBe(true);
    expect(gbnfMatches(grammar, '[THINK]hm[/THINK]It is sunny.')).toBe(false);
    expect(gbnfMatches(grammar, '[THINK]hm[/THINK][TOOL_CALLS]get_weather[ARGS]{"town": 1}')).toBe(false);
  });

  it('under a json_schema text format: the think block, then the JSON', async () => {
    const grammar = (await plan({ format: JSON_FORMAT })).params.grammar as string;
    expect(gbnfMatches(grammar, '[THINK]ok[/THINK]{"answer": "x"}')).toBe(true);
    expect(gbnfMatches(grammar, '{"answer": "x"}')).toBe(true);
    expect(gbnfMatches(grammar, '[THINK]ok[/THINK]x')).toBe(false);
  });

  it('reads the thought as reasoning and the call as a call', async () => {
    const r = new ReplyAssembler((await plan({ tools: [weather], toolChoice: 'required' })).reply);
    const out: EngineChunk[] = [];
    for (const ch of `[THINK]hm[/THINK]${call}`) out.push(...r.push(ch));
    out.push(...r.finish('stop', { prompt_tokens: 1, completion_tokens: 1 }));
    expect(out.flatMap((c) => (c.type === 'reasoning' ? [c.delta] : [])).join('')).toBe('hm');
    expect(out.flatMap((c) => (c.type === 'tool_call' ? [[c.name, c.arguments]] : []))).toEqual([
      ['get_weather', '{"city":"Paris"}'],
    ]);
  });
});
