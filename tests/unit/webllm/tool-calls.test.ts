/**
 * Each family's native tool-call output, as the model would stream it, must be accepted by the
 * structural tag the adapter sends (compiled by the real xgrammar), and parsed into the right
 * calls, with prose before or after them; wrong arguments and forbidden prose must be refused.
 */
import { describe, expect, it } from 'vitest';
import type { EngineChunk } from '../../../src/engine/types';
import { ReplyAssembler } from '../../../src/engine/webllm/webllm-reply';
import { planChatRequest } from '../../../src/engine/webllm/webllm-request';
import { callsOf, textOf } from '../../helpers/engine-chunks';
import { request } from '../../helpers/webllm-fakes';
import { structuralTagAccepts } from '../../helpers/xgrammar';
import { clock, FAMILIES, type FamilyCase, weather } from './families';

const PARIS = { name: 'get_weather', arguments: '{"city":"Paris"}' };
const ROME = { name: 'get_weather', arguments: '{"city":"Rome"}' };

function plan(family: FamilyCase, over: Parameters<typeof request>[0] = {}) {
  return planChatRequest(request({ model: family.model, tools: [weather, clock], ...over }), {
    vision: false,
  });
}

function tagOf(family: FamilyCase, over: Parameters<typeof request>[0] = {}): unknown {
  const format = plan(family, over).body.response_format;
  expect(format?.type).toBe('structural_tag');
  return format?.structural_tag;
}

/** Streams `text` through the assembler in pieces of `size` characters, as web-llm's deltas come. */
function assemble(family: FamilyCase, text: string, size: number): EngineChunk[] {
  const reply = new ReplyAssembler({ ...plan(family).reply, reasoning: null });
  const out: EngineChunk[] = [];
  for (let i = 0; i < text.length; i += size) out.push(...reply.push(text.slice(i, i + size)));
  out.push(...reply.finish('stop', { prompt_tokens: 1, completion_tokens: 1 }));
  return out;
}

/** The chunks' kinds, runs of text as one; partial calls left out (tool-call-deltas.test.ts checks them). */
const kinds = (chunks: EngineChunk[]) =>
  chunks
    .map((c) => c.type)
    .filter((t) => t !== 'tool_call_delta')
    .filter((t, i, all) => t !== 'text' || all[i - 1] !== 'text');

describe.each(FAMILIES)('$model', (family) => {
  /** The whole reply as the model writes it: its think block first, for models that always think. */
  const reply = (text: string) => `${family.think ?? ''}${text}`;

  it('auto: the grammar takes one call, two calls, and prose before or after; not bad arguments', async () => {
    const tag = tagOf(family);
    expect(await structuralTagAccepts(tag, reply(family.one))).toBe(true);
    expect(await structuralTagAccepts(tag, reply(family.two))).toBe(true);
    expect(await structuralTagAccepts(tag, reply(`Let me check.\n${family.one}`))).toBe(true);
    // Where calls are the whole reply, nothing may follow them.
    expect(await structuralTagAccepts(tag, reply(`${family.one}\nChecking now.`))).toBe(!family.leading);
    expect(await structuralTagAccepts(tag, reply('It is sunny in Paris.'))).toBe(true);
    expect(await structuralTagAccepts(tag, reply(family.bad))).toBe(false);
  });

  it('required: a call from the first token after thinking; named + no parallel calls: exactly one', async () => {
    const required = tagOf(family, { toolChoice: 'required' });
    expect(await structuralTagAccepts(required, reply(family.one))).toBe(true);
    expect(await structuralTagAccepts(required, reply('It is sunny in Paris.'))).toBe(false);
    expect(await structuralTagAccepts(required, reply(`Sure. ${family.one}`))).toBe(false);
    const single = tagOf(family, { toolChoice: { name: 'get_weather' }, parallelToolCalls: false });
    expect(await structuralTagAccepts(single, reply(family.one))).toBe(true);
    expect(await structuralTagAccepts(single, reply(family.two))).toBe(false);
  });

  it('auto + json_schema: the JSON answer or a call, nothing else', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
    const tag = tagOf(family, { format: { type: 'json_schema', name: 'a', schema, strict: true } });
    expect(await structuralTagAccepts(tag, reply('{"answer": "sunny"}'))).toBe(true);
    expect(await structuralTagAccepts(tag, reply(family.one))).toBe(true);
    expect(await structuralTagAccepts(tag, reply('It is sunny.'))).toBe(false);
    expect(await structuralTagAccepts(tag, reply('{"weather": "sunny"}'))).toBe(false);
  });

  it.each([1, 3, 1000])('parses streamed calls (deltas of %i chars) with prose around them', (size) => {
    expect(callsOf(assemble(family, family.one, size))).toEqual([PARIS]);
    expect(callsOf(assemble(family, family.two, size))).toEqual([PARIS, ROME]);
    const around = assemble(family, `Let me check.\n${family.one}\nDone.`, size);
    if (family.leading) {
      // Meta's parsers read a call only at the start of the reply: after prose, it is prose.
      expect(kinds(around)).toEqual(['text', 'done']);
      expect(textOf(around)).toBe(`Let me check.\n${family.one}\nDone.`);
      return;
    }
    expect(kinds(around)).toEqual(['text', 'tool_call', 'text', 'done']);
    expect(textOf(around)).toBe('Let me check.Done.');
    expect(around.at(-1)).toMatchObject({ type: 'done', finishReason: 'tool_calls' });
  });

  it('streams plain prose as it comes and gives back a cut-off call as text', () => {
    const prose = assemble(family, 'It is sunny.', 3);
    expect(textOf(prose)).toBe('It is sunny.');
    expect(prose.at(-1)).toMatchObject({ finishReason: 'stop' });
    // A reply cut off mid-call (max_output_tokens) is no call: the text is all there is.
    const cut = family.one.slice(0, -4);
    const chunks = assemble(family, cut, 4);
    expect(callsOf(chunks)).toEqual([]);
    expect(textOf(chunks)).toBe(cut);
  });
});

describe.each(FAMILIES.filter((f) => f.think))('$model, which always thinks first', (family) => {
  const think = family.think as string;

  it('streams the think block as reasoning, then the calls after it', () => {
    const reply = new ReplyAssembler(plan(family).reply);
    const out: EngineChunk[] = [];
    for (const ch of `${think}${family.two}`) out.push(...reply.push(ch));
    out.push(...reply.finish('stop', { prompt_tokens: 1, completion_tokens: 1 }));
    expect(out.flatMap((c) => (c.type === 'reasoning' ? [c.delta] : [])).join('')).toBe(
      'The user wants Paris.',
    );
    expect(callsOf(out)).toEqual([PARIS, ROME]);
    expect(textOf(out)).toBe('');
  });

  it('a call mentioned while thinking is no call; a reply cannot skip the block', async () => {
    const tag = tagOf(family);
    const musing = think.replace('The user wants Paris.', `Maybe ${family.one}? No.`);
    expect(await structuralTagAccepts(tag, `${musing}It is sunny.`)).toBe(true);
    // Skipping the block (or, where the template opened it, never closing it) is refused.
    expect(await structuralTagAccepts(tag, family.one)).toBe(false);
  });
});
