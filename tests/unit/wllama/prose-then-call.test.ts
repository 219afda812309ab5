/**
 * Issue 44 ("no grammar or parse defect"), wllama under `tool_choice: auto`: the formats whose
 * reader takes a call wherever it opens (Hermes, Qwen, Ministral, Phi-4, Gemma) had a prose rule
 * that refused a call opening only at the reply's start, so text and then a call was prose to the
 * grammar and a call to the reader: `Sure.[TOOL_CALLS]get_weather[ARGS]{"city": 12}` came back as
 * a call whose arguments no schema held. Prose now holds no opening anywhere, and a call after text
 * is the call rule's. The formats whose calls are the whole reply (Llama 3.x, Mistral) read such
 * text as text, as before.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { familyOf } from '../../../src/engine/tool-formats';
import type { EngineChunk, FunctionToolSpec } from '../../../src/engine/types';
import { ReplyAssembler } from '../../../src/engine/webllm/webllm-reply';
import { planWllamaRequest } from '../../../src/engine/wllama/wllama-request';
import { callsOf, textOf } from '../../helpers/engine-chunks';
import { gbnfMatches } from '../../helpers/gbnf-match';
import { generateRequest } from '../../helpers/generate-request';

const weather: FunctionToolSpec = {
  name: 'get_weather',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
  strict: true,
};

/** A model of each family whose calls may follow text, and its call written with `args`. */
const FOLLOWING: Array<[string, (args: string) => string]> = [
  ['Ministral-3-3B-Reasoning-2512', (a) => `[TOOL_CALLS]get_weather[ARGS]${a}`],
  ['Hermes-3-Llama-3.1-8B', (a) => `<tool_call>\n{"name": "get_weather", "arguments": ${a}}\n</tool_call>`],
  ['Phi-4-mini-instruct', (a) => `functools[{"name": "get_weather", "arguments": ${a}}]`],
  ['gemma-4-E2B-it', (a) => `<tool_call>\n{"name": "get_weather", "arguments": ${a}}\n</tool_call>`],
];
const BAD = '{"city": 12}';
const GOOD = '{"city": "Paris"}';

async function plan(model: string) {
  const req = generateRequest({ model, tools: [weather], toolChoice: 'auto' });
  return planWllamaRequest(req, { family: familyOf(model), invalidUtf8: [] });
}

function read(reply: Awaited<ReturnType<typeof plan>>['reply'], text: string): EngineChunk[] {
  const r = new ReplyAssembler(reply);
  const out: EngineChunk[] = [];
  for (const ch of text) out.push(...r.push(ch));
  out.push(...r.finish('stop', { prompt_tokens: 1, completion_tokens: 1 }));
  return out;
}

describe('wllama auto: a call after text is held to its schema (issue 44)', () => {
  for (const [model, call] of FOLLOWING) {
    it(`${model}: text then a call with bad arguments is refused`, async () => {
      const g = (await plan(model)).params.grammar as string;
      expect(gbnfMatches(g, `Sure. ${call(BAD)}`)).toBe(false);
      expect(gbnfMatches(g, `Sure.\n\nLet me check.${call(BAD)}`)).toBe(false);
      expect(gbnfMatches(g, call(BAD))).toBe(false);
    });

    it(`${model}: text then a good call is accepted and read as text and the call`, async () => {
      const p = await plan(model);
      const g = p.params.grammar as string;
      const reply = `Sure. ${call(GOOD)}`;
      expect(gbnfMatches(g, reply)).toBe(true);
      const chunks = read(p.reply, reply);
      expect(textOf(chunks).trim()).toBe('Sure.');
      expect(callsOf(chunks).map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
        ['get_weather', { city: 'Paris' }],
      ]);
    });
  }

  it('Hermes: prose that names the tag without opening a call stays prose', async () => {
    const p = await plan('Hermes-3-Llama-3.1-8B');
    const g = p.params.grammar as string;
    const prose = 'Use `<tool_call>` like this: <tool_call> x.';
    expect(gbnfMatches(g, prose)).toBe(true);
    expect(callsOf(read(p.reply, prose))).toEqual([]);
  });

  it('Hermes: prose the grammar accepts holds no call opening, for any text (property)', async () => {
    const p = await plan('Hermes-3-Llama-3.1-8B');
    const g = p.params.grammar as string;
    const pieces = fc.constantFrom('<', 'tool', '_call', '>', '\n', '<tool_call>', 'a', ' ', '/', '{');
    fc.assert(
      fc.property(fc.array(pieces, { minLength: 1, maxLength: 12 }), (parts) => {
        const text = `x${parts.join('')}`;
        // Prose alone: accepted exactly when no opening is in it (the reader would read a call there).
        expect(gbnfMatches(g, text)).toBe(!text.includes('<tool_call>\n'));
      }),
      { numRuns: 200 },
    );
  });

  it('Mistral and Llama 3.2: text then call markup is read as text, as before', async () => {
    for (const [model, reply] of [
      ['Mistral-7B-Instruct-v0.3', `Sure. [TOOL_CALLS][{"name": "get_weather", "arguments": ${BAD}}]`],
      ['Llama-3.2-1B-Instruct', `Sure. {"name": "get_weather", "parameters": ${BAD}}`],
    ] as const) {
      const p = await plan(model);
      expect(callsOf(read(p.reply, reply)), model).toEqual([]);
      expect(textOf(read(p.reply, reply)), model).toBe(reply);
    }
  });

  it('the prose rules grow with the openings, not with anything else', async () => {
    const rules = (g: string) => g.split('\n').filter((l) => l.startsWith('free-state')).length;
    const one = rules((await plan('Hermes-3-Llama-3.1-8B')).params.grammar as string);
    // `<tool_call>\n`: one state per proper prefix of the opening.
    expect(one).toBe('<tool_call>\n'.length);
  });
});
