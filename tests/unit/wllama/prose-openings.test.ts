/**
 * Issue 28 defect 9 on wllama: under `tool_choice: auto` the grammar refuses only a real call
 * opening, never a first character, and the reply is read as calls only where the grammar held
 * them. Before: prose could not start with the first character of any trigger, so a Phi-4 reply
 * (trigger `functools[`) could not start with `f`, a Qwen2.5 one not with `<`; and a bare
 * `<tool_call>` in prose was read as the start of a call (cut off at a token limit, it vanished).
 */
import { describe, expect, it } from 'vitest';
import { familyOf } from '../../../src/engine/tool-formats';
import type { EngineChunk, FunctionToolSpec, GenerateRequest } from '../../../src/engine/types';
import { ReplyAssembler } from '../../../src/engine/webllm/webllm-reply';
import { planWllamaRequest } from '../../../src/engine/wllama/wllama-request';
import { callsOf, textOf } from '../../helpers/engine-chunks';
import { gbnfMatches } from '../../helpers/gbnf-match';
import { generateRequest } from '../../helpers/generate-request';

const weather: FunctionToolSpec = {
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: true,
};

const request = (model: string, over: Partial<GenerateRequest> = {}) =>
  generateRequest({ model, tools: [weather], parallelToolCalls: false, ...over });

async function planFor(model: string) {
  return planWllamaRequest(request(model), { family: familyOf(model), invalidUtf8: [] });
}

/** The reply streamed one character per delta through the plan's reader. */
async function read(model: string, reply: string, finish = 'stop'): Promise<EngineChunk[]> {
  const r = new ReplyAssembler((await planFor(model)).reply);
  const out: EngineChunk[] = [];
  for (const ch of reply) out.push(...r.push(ch));
  out.push(...r.finish(finish, { prompt_tokens: 1, completion_tokens: 1 }));
  return out;
}
const PARIS = [{ name: 'get_weather', arguments: '{"city":"Paris"}' }];

describe('wllama prose refuses only real call openings (issue 28 defect 9)', () => {
  it('Phi-4: "from x import y" is prose; functools[{…}] is a call held to its schema', async () => {
    const grammar = (await planFor('Phi-4-mini-instruct')).params.grammar as string;
    expect(gbnfMatches(grammar, 'from x import y')).toBe(true);
    expect(gbnfMatches(grammar, 'functools is a module.')).toBe(true);
    expect(gbnfMatches(grammar, 'functools[{"name": "get_weather", "arguments": {"city": "Paris"}}]')).toBe(
      true,
    );
    expect(gbnfMatches(grammar, 'functools[{"name": "get_weather", "arguments": {"town": 1}}]')).toBe(false);
    expect(gbnfMatches(grammar, '  functools[{"name": "x"}]')).toBe(false);
    expect(
      callsOf(
        await read(
          'Phi-4-mini-instruct',
          'functools[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
        ),
      ),
    ).toEqual(PARIS);
  });

  it('Qwen2.5: "Use `<tool_call>` like this." is prose, and stays prose when cut off', async () => {
    const model = 'Qwen2.5-7B-Instruct';
    const grammar = (await planFor(model)).params.grammar as string;
    const mention = 'Use `<tool_call>` like this.';
    expect(gbnfMatches(grammar, mention)).toBe(true);
    expect(gbnfMatches(grammar, '<tool_call> is the marker.')).toBe(true);
    expect(
      gbnfMatches(
        grammar,
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
      ),
    ).toBe(true);
    expect(gbnfMatches(grammar, '<tool_call>\n{"name": "get_weather", "arguments": {}}\n</tool_call>')).toBe(
      false,
    );
    expect(gbnfMatches(grammar, '\n<tool_call>\nanything')).toBe(false);
    for (const finish of ['stop', 'length']) {
      const chunks = await read(model, mention, finish);
      expect(textOf(chunks)).toBe(mention);
      expect(callsOf(chunks)).toEqual([]);
    }
    expect(textOf(await read(model, '<tool_call> is the marker.', 'length'))).toBe(
      '<tool_call> is the marker.',
    );
  });

  it('Qwen2.5: a real call is still read as a call', async () => {
    const chunks = await read(
      'Qwen2.5-7B-Instruct',
      '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    );
    expect(callsOf(chunks)).toEqual(PARIS);
    expect(textOf(chunks)).toBe('');
  });

  it('Llama 3.x: a plain JSON answer and leading whitespace are prose; {"name" opens a call', async () => {
    const model = 'Llama-3.2-1B-Instruct';
    const grammar = (await planFor(model)).params.grammar as string;
    expect(gbnfMatches(grammar, '{"answer": 42}')).toBe(true);
    expect(textOf(await read(model, '{"answer": 42}'))).toBe('{"answer": 42}');
    expect(gbnfMatches(grammar, '\nIt is sunny.')).toBe(true);
    expect(gbnfMatches(grammar, '{ "name": "nope"}')).toBe(false);
    expect(gbnfMatches(grammar, '{"name": "get_weather", "parameters": {"city": "Paris"}}')).toBe(true);
    expect(gbnfMatches(grammar, '<|python_tag|>anything')).toBe(false);
    expect(callsOf(await read(model, '{"name": "get_weather", "parameters": {"city": "Paris"}}'))).toEqual(
      PARIS,
    );
  });
});
