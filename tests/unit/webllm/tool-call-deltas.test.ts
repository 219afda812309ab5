/**
 * The assembler streams a call's arguments as the model writes them (`tool_call_delta`), in every
 * family's format: the deltas come before the whole call, carry its index and name, and join to
 * the same JSON value as its arguments. A `python` call's code, decoded from the deltas as the core
 * decodes it, is the code the whole call holds, for any code and any way the stream is cut.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonFieldStream } from '../../../src/core/hosted/json-string-stream';
import type { EngineChunk, FunctionToolSpec } from '../../../src/engine/types';
import { ReplyAssembler } from '../../../src/engine/webllm/webllm-reply';
import { planChatRequest } from '../../../src/engine/webllm/webllm-request';
import { callsOf } from '../../helpers/engine-chunks';
import { request } from '../../helpers/webllm-fakes';
import { clock, FAMILIES, type FamilyCase, weather } from './families';

const python: FunctionToolSpec = {
  name: 'python',
  description: 'Runs Python.',
  parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
  strict: true,
};

function assembler(model: string, tools: FunctionToolSpec[]): ReplyAssembler {
  const plan = planChatRequest(request({ model, tools }), { vision: false });
  return new ReplyAssembler({ ...plan.reply, reasoning: null });
}

/** Streams `text` through the assembler cut at `cuts` (sorted positions), as web-llm's deltas come. */
function assemble(reply: ReplyAssembler, text: string, cuts: number[]): EngineChunk[] {
  const out: EngineChunk[] = [];
  let from = 0;
  for (const c of [...cuts, text.length]) {
    if (c > from) out.push(...reply.push(text.slice(from, c)));
    from = Math.max(from, c);
  }
  out.push(...reply.finish('stop', { prompt_tokens: 1, completion_tokens: 1 }));
  return out;
}

const every = (text: string, size: number) =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) => i * size);

type Delta = EngineChunk & { type: 'tool_call_delta' };
const deltasOf = (chunks: EngineChunk[], index: number) =>
  chunks.filter((c): c is Delta => c.type === 'tool_call_delta' && c.index === index);

describe.each(FAMILIES)('$model', (family: FamilyCase) => {
  it.each([1, 3, 8])(
    'one call, %i characters a push: deltas before the call join to its arguments',
    (size) => {
      const chunks = assemble(assembler(family.model, [weather, clock]), family.one, every(family.one, size));
      const [call] = callsOf(chunks);
      const deltas = deltasOf(chunks, 0);
      expect(call?.name).toBe('get_weather');
      expect(deltas.length).toBeGreaterThan(size === 1 ? 3 : 0);
      expect(deltas.every((d) => d.name === 'get_weather')).toBe(true);
      expect(JSON.parse(deltas.map((d) => d.arguments_delta).join(''))).toEqual(
        JSON.parse(call?.arguments ?? ''),
      );
      const callAt = chunks.findIndex((c) => c.type === 'tool_call');
      expect(chunks.findLastIndex((c) => c.type === 'tool_call_delta')).toBeLessThan(callAt);
    },
  );

  it('two calls: each streamed call joins to its own arguments, under its own index', () => {
    const chunks = assemble(assembler(family.model, [weather, clock]), family.two, every(family.two, 2));
    const calls = callsOf(chunks);
    expect(calls).toHaveLength(2);
    expect(deltasOf(chunks, 0).length).toBeGreaterThan(0);
    calls.forEach((call, i) => {
      const deltas = deltasOf(chunks, i);
      // A list of calls after one marker (Mistral, Llama's `;`) streams its first call only.
      if (deltas.length > 0)
        expect(JSON.parse(deltas.map((d) => d.arguments_delta).join(''))).toEqual(JSON.parse(call.arguments));
    });
  });

  it('no delta for prose, nor for a call to a tool not offered', () => {
    const prose = assemble(assembler(family.model, [weather, clock]), 'It is sunny in Paris.', []);
    expect(prose.some((c) => c.type === 'tool_call_delta')).toBe(false);
    const unknown = family.one.replaceAll('get_weather', 'get_news');
    const chunks = assemble(assembler(family.model, [weather, clock]), unknown, every(unknown, 1));
    expect(chunks.some((c) => c.type === 'tool_call_delta')).toBe(false);
  });
});

/** How each format writes a `python` call, as its own renderer (the history it shows the model) writes it. */
function pythonCall(model: string, code: string): string {
  const plan = planChatRequest(request({ model, tools: [python] }), { vision: false });
  const format = plan.reply.format;
  if (!format) throw new Error(`${model} has no tool format`);
  return format.renderCalls([{ name: 'python', arguments: JSON.stringify({ code }), callId: 'call00001' }]);
}

/** Code as models write it: lines, quotes, backslashes, tabs, non-ASCII and astral characters. */
const codeArb = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'print(',
        '"x"',
        "'y'",
        '\\n',
        '\\',
        '\t',
        '\n',
        '    ',
        'é',
        '😀',
        '{',
        '}',
        ': ',
        '#',
      ),
      fc.string({ unit: 'grapheme', maxLength: 6 }),
    ),
    { minLength: 1, maxLength: 25 },
  )
  .map((parts) => `x = 1\n${parts.join('')}`.replace(/\n<\/parameter>/g, '\n< /parameter>'))
  .filter((c) => c.trim() === c);

describe.each(FAMILIES.map((f) => f.model))('python calls in %s', (model) => {
  it('the code decoded from the deltas, as they come, is the whole call’s code, however the stream is cut', () => {
    fc.assert(
      fc.property(codeArb, fc.array(fc.nat(), { maxLength: 30 }), (code, raw) => {
        const text = pythonCall(model, code);
        const cuts = [...new Set(raw.map((c) => c % text.length))].sort((a, b) => a - b);
        const chunks = assemble(assembler(model, [python]), text, cuts);
        const [call] = callsOf(chunks);
        expect(call?.name).toBe('python');
        const field = new JsonFieldStream('code');
        const decoded = deltasOf(chunks, 0).map((d) => field.push(d.arguments_delta));
        expect(field.complete).toBe(true);
        expect(decoded.join('')).toBe(JSON.parse(call?.arguments ?? '').code);
      }),
      { numRuns: 60 },
    );
  });

  it('streams a multi-line code in many pieces before the call is whole', () => {
    const code = 'total = 0\nfor i in range(10):\n    total += i * i\nprint("total:", total)';
    const text = pythonCall(model, code);
    const chunks = assemble(assembler(model, [python]), text, every(text, 4));
    const field = new JsonFieldStream('code');
    const pieces = deltasOf(chunks, 0)
      .map((d) => field.push(d.arguments_delta))
      .filter((p) => p !== '');
    expect(pieces.length).toBeGreaterThan(5);
    expect(pieces.join('')).toBe(code);
  });
});
