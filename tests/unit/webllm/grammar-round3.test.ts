/**
 * Issue 28, defects 3, 6, 8 and 9, against the real web-xgrammar 0.1.27: Ministral 3 Reasoning may
 * think before a required call or a JSON answer; Phi-4-mini calls as vLLM's and SGLang's parsers
 * read them (`functools[…]`); the JSON whitespace bound never disappears silently; and a call marker
 * mentioned in prose, or a plain JSON answer from Llama 3.x, is prose, while a call stays held to
 * its tool's schema.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { phi4Format } from '../../../src/engine/tool-formats/phi4';
import type { EngineChunk, GenerateRequest } from '../../../src/engine/types';
import { ReplyAssembler } from '../../../src/engine/webllm/webllm-reply';
import { planChatRequest } from '../../../src/engine/webllm/webllm-request';
import { callsOf, reasoningOf } from '../../helpers/engine-chunks';
import { webllmFormatFor } from '../../helpers/grammar-walks';
import { llama3Tokenizer, qwen3 } from '../../helpers/tokenizers';
import { collect, done, LLAMA, rejection, request, setup, text } from '../../helpers/webllm-fakes';
import { matchTokens, responseFormatAccepts } from '../../helpers/xgrammar';
import { clock, weather } from './families';

const MINISTRAL = 'Ministral-3-3B-Reasoning-2512-q4f16_1-MLC';
const PHI4 = 'Phi-4-mini-instruct-q4f16_1-MLC';
const QWEN25 = 'Qwen2.5-1.5B-Instruct-q4f16_1-MLC';
const QWEN35 = 'Qwen3.5-0.8B-q4f16_1-MLC';
const MISTRAL = 'Mistral-7B-Instruct-v0.3-q4f16_1-MLC';

const SCHEMA = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
const JSON_FORMAT: GenerateRequest['format'] = {
  type: 'json_schema',
  name: 'a',
  schema: SCHEMA,
  strict: true,
};

/** The `response_format` the engine hands web-llm for `model` with both tools. */
const formatFor = (model: string, over: Partial<GenerateRequest> = {}) =>
  webllmFormatFor(model, { tools: [weather, clock], ...over });

/** Streams `reply` one character per delta (the worst split) through the reply of `model`'s plan. */
function assemble(model: string, reply: string, over: Partial<GenerateRequest> = {}): EngineChunk[] {
  const plan = planChatRequest(request({ model, tools: [weather, clock], ...over }), { vision: false });
  const r = new ReplyAssembler(plan.reply);
  const out: EngineChunk[] = [];
  for (const ch of reply) out.push(...r.push(ch));
  out.push(...r.finish('stop', { prompt_tokens: 1, completion_tokens: 1 }));
  return out;
}
const PARIS = { name: 'get_weather', arguments: '{"city":"Paris"}' };
const ROME = { name: 'get_weather', arguments: '{"city":"Rome"}' };

describe('defect 3: Ministral 3 Reasoning may think before a required call or a JSON answer', () => {
  const call = '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}';

  it.each([
    ['required', { toolChoice: 'required' as const }],
    ['a named tool', { toolChoice: { name: 'get_weather' } }],
  ])('%s: `[THINK]…[/THINK]` then the call, or the call alone; never prose', async (_, over) => {
    const format = await formatFor(MINISTRAL, over);
    expect(await responseFormatAccepts(format, `[THINK]hm[/THINK]${call}`)).toBe(true);
    expect(await responseFormatAccepts(format, `[THINK]The user wants Paris.[/THINK]\n\n${call}`)).toBe(true);
    expect(await responseFormatAccepts(format, call)).toBe(true);
    expect(await responseFormatAccepts(format, '[THINK]hm[/THINK]It is sunny.')).toBe(false);
    expect(
      await responseFormatAccepts(format, '[THINK]hm[/THINK][TOOL_CALLS]get_weather[ARGS]{"town": "x"}'),
    ).toBe(false);
    // The block closes once: its closing marker is not text the call may follow twice.
    expect(await responseFormatAccepts(format, `[THINK]a[/THINK]b[/THINK]${call}`)).toBe(false);
  });

  it('a json_schema text.format, with or without tools: the think block, then the JSON', async () => {
    for (const over of [{ tools: [] }, {}]) {
      const format = await formatFor(MINISTRAL, { format: JSON_FORMAT, ...over });
      expect(await responseFormatAccepts(format, '[THINK]hm[/THINK]{"answer": "sunny"}')).toBe(true);
      expect(await responseFormatAccepts(format, '{"answer": "sunny"}')).toBe(true);
      expect(await responseFormatAccepts(format, '[THINK]hm[/THINK]It is sunny.')).toBe(false);
      expect(await responseFormatAccepts(format, '[THINK]hm[/THINK]{"weather": "sunny"}')).toBe(false);
    }
  });

  it('the engine surfaces the thinking as reasoning and the rest as the call', () => {
    const chunks = assemble(MINISTRAL, `[THINK]hm[/THINK]${call}`, { toolChoice: 'required' });
    expect(reasoningOf(chunks)).toBe('hm');
    expect(callsOf(chunks)).toEqual([PARIS]);
    expect(text(chunks)).toBe('');
  });

  it('compiles over a real vocabulary and takes the reply token by token', async () => {
    const format = await formatFor(MINISTRAL, { toolChoice: 'required' });
    const run = await matchTokens(format, llama3Tokenizer(), `[THINK]hm[/THINK]${call}`);
    expect(run.complete).toBe(true);
  });
});

describe('defect 6: Phi-4-mini calls as vLLM’s phi4_mini_json and SGLang’s detector read them', () => {
  const functools = (...cities: string[]) =>
    `functools[${cities.map((c) => `{"name": "get_weather", "arguments": {"city": "${c}"}}`).join(', ')}]`;

  it('the grammar holds `functools[…]` calls to the schema, under auto and required', async () => {
    for (const over of [{}, { toolChoice: 'required' as const }]) {
      const format = await formatFor(PHI4, over);
      expect(await responseFormatAccepts(format, functools('Paris'))).toBe(true);
      expect(
        await responseFormatAccepts(
          format,
          'functools[{"name": "get_weather", "arguments": {"town": "Paris"}}]',
        ),
      ).toBe(false);
    }
    expect(
      await responseFormatAccepts(await formatFor(PHI4, { toolChoice: 'required' }), 'It is sunny.'),
    ).toBe(false);
  });

  it('under auto a `functools[…]` reply is a call, not text; several in one list are several calls', () => {
    const one = assemble(PHI4, functools('Paris'));
    expect(callsOf(one)).toEqual([PARIS]);
    expect(text(one)).toBe('');
    expect(done(one)).toMatchObject({ finishReason: 'tool_calls' });
    expect(callsOf(assemble(PHI4, functools('Paris', 'Rome')))).toEqual([PARIS, ROME]);
    const around = assemble(PHI4, `Let me check.\n${functools('Paris')}`);
    expect([text(around), callsOf(around)]).toEqual(['Let me check.', [PARIS]]);
  });

  it('the `<|tool_call|>` form is held to the schema too', async () => {
    const format = await formatFor(PHI4);
    const call = (args: string) =>
      `<|tool_call|>[{"name": "get_weather", "arguments": ${args}}]<|/tool_call|>`;
    expect(await responseFormatAccepts(format, call('{"city": "Paris"}'))).toBe(true);
    expect(await responseFormatAccepts(format, call('{"town": "Paris"}'))).toBe(false);
  });

  it('the `<|tool_call|>` form is read too, with or without its closing marker, `parameters` as well', () => {
    const list = '[{"name": "get_weather", "arguments": {"city": "Paris"}}]';
    expect(callsOf(assemble(PHI4, `<|tool_call|>${list}<|/tool_call|>`))).toEqual([PARIS]);
    expect(callsOf(assemble(PHI4, `<|tool_call|>${list}`))).toEqual([PARIS]);
    const params = 'functools[{"name": "get_weather", "parameters": {"city": "Paris"}}]';
    expect(callsOf(assemble(PHI4, params))).toEqual([PARIS]);
  });

  it('history writes a turn’s calls as the grammar does: one `functools[…]` list per call', async () => {
    const rendered = phi4Format.renderCalls([
      { name: 'get_weather', arguments: '{"city":"Paris"}', callId: 'c1' },
      { name: 'get_weather', arguments: '{"city":"Rome"}', callId: 'c2' },
    ]);
    expect(rendered).toBe(`${functools('Paris')}\n${functools('Rome')}`);
    expect(await responseFormatAccepts(await formatFor(PHI4), rendered)).toBe(true);
    expect(callsOf(assemble(PHI4, rendered))).toEqual([PARIS, ROME]);
  });
});

describe('defect 8: the JSON whitespace bound never disappears silently', () => {
  const unavailable = () => Promise.reject(new Error('Failed to fetch dynamically imported module'));

  it.each([
    ['a json_object text.format', { format: { type: 'json_object' } as const }],
    ['a json_schema text.format', { format: JSON_FORMAT }],
    ['tools', { tools: [weather] }],
  ])('%s without the web-xgrammar chunk: a clear 503 before anything runs', async (_, over) => {
    const { engine, fakes } = setup({ xgrammar: unavailable });
    const req = request(over);
    const early = await rejection(engine.preflight(LLAMA, req));
    expect([early.status, early.code]).toEqual([503, 'grammar_unavailable']);
    expect(early.message).toMatch(/web-xgrammar/);
    const late = await rejection(engine.generate(req, new AbortController().signal));
    expect([late.status, late.code]).toEqual([503, 'grammar_unavailable']);
    expect(fakes.flatMap((f) => f.requests)).toEqual([]);
  });

  it('a plain text request needs no grammar and still runs', async () => {
    const { engine, fake } = setup({ xgrammar: unavailable });
    await engine.preflight(LLAMA, request());
    const chunks = await collect(engine.generate(request(), new AbortController().signal));
    expect(done(chunks)).toMatchObject({ finishReason: 'stop' });
    expect(fake().requests).toHaveLength(1);
  });
});

describe('defect 9: a call marker in prose or code is prose; a call stays held to its schema', () => {
  it.each([
    [
      QWEN25,
      'Use `<tool_call>` like this.',
      '<tool_call>\n{"name": "get_weather", "arguments": {"town": "x"}}\n</tool_call>',
    ],
    [
      QWEN35,
      'Wrap calls in <tool_call> tags.',
      '<tool_call>\n<function=get_weather>\n<parameter=town>\nx\n</parameter>\n</function>\n</tool_call>',
    ],
    [MINISTRAL, 'The marker is [TOOL_CALLS], then a name.', '[TOOL_CALLS]get_weather[ARGS]{"town": "x"}'],
    [
      MISTRAL,
      'The marker is `[TOOL_CALLS]`.',
      '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"town": "x"}}]',
    ],
    [
      PHI4,
      'Use functools.partial for that.',
      'functools[{"name": "get_weather", "arguments": {"town": "x"}}]',
    ],
    [
      PHI4,
      'The old form was <|tool_call|>, ask me.',
      'functools[{"name": "get_weather", "arguments": {"town": "x"}}]',
    ],
  ])('%s under auto: the mention passes, a call with bad arguments does not', async (model, prose, bad) => {
    const format = await formatFor(model);
    const think = model === QWEN35 ? 'ok\n</think>\n\n' : '';
    expect(await responseFormatAccepts(format, think + prose)).toBe(true);
    expect(await responseFormatAccepts(format, `${think}${prose}\nMore text.`)).toBe(true);
    expect(await responseFormatAccepts(format, think + bad)).toBe(false);
  });

  it('text the grammar did not hold as a call is not read as one (a marker without its newline)', async () => {
    const loose = '<tool_call>{"name": "get_weather", "arguments": {"town": 1}}</tool_call>';
    expect(await responseFormatAccepts(await formatFor(QWEN25), loose)).toBe(true);
    const chunks = assemble(QWEN25, loose);
    expect([text(chunks), callsOf(chunks)]).toEqual([loose, []]);
  });

  it('the parser gives the mention back as text and still reads a real call after it', () => {
    const call = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';
    const chunks = assemble(QWEN25, `Use \`<tool_call>\` like this.\n${call}`);
    expect(text(chunks)).toBe('Use `<tool_call>` like this.');
    expect(callsOf(chunks)).toEqual([PARIS]);
    const mention = assemble(QWEN25, 'Use `<tool_call>` like this.');
    expect([text(mention), callsOf(mention)]).toEqual(['Use `<tool_call>` like this.', []]);
  });

  // Prose over an alphabet rich in marker pieces, with no `{` (so no call can parse) and no newline
  // straight after a marker (which is how a call opens).
  const prose = fc
    .array(fc.constantFrom('<tool_call>', '</tool_call>', '<', '>', '`', ' ', '\n', 'a', 'tool_call', '.'), {
      maxLength: 24,
    })
    .map((parts) => parts.join(''))
    .filter((p) => !p.includes('<tool_call>\n'));

  it('property: prose with markers in it comes back whole, and a call after it is still read (300 runs)', () => {
    const call = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';
    fc.assert(
      fc.property(prose, (p) => {
        const alone = assemble(QWEN25, p);
        expect(text(alone).trimEnd()).toBe(p.trimEnd());
        expect(callsOf(alone)).toEqual([]);
        const before = assemble(QWEN25, `${p}\n${call}`);
        expect(text(before)).toBe(p.trimEnd());
        expect(callsOf(before)).toEqual([PARIS]);
      }),
      { numRuns: 300, seed: 28 },
    );
  });

  it('property: the grammar takes that prose under auto (40 runs)', async () => {
    const format = await formatFor(QWEN25);
    await fc.assert(
      fc.asyncProperty(prose, async (p) => {
        expect(await responseFormatAccepts(format, p)).toBe(true);
      }),
      { numRuns: 40, seed: 28 },
    );
  });

  it('Qwen’s real tokens: the mention passes token by token', async () => {
    const format = await formatFor('Qwen3-0.6B-q4f16_1-MLC');
    const run = await matchTokens(format, qwen3(), '<think>\nok\n</think>\n\nUse `<tool_call>` like this.');
    expect(run.complete).toBe(true);
  });

  describe('Llama 3.x with tools offered (as llama.cpp’s trigger reads: a call opens `{"name"`)', () => {
    it.each([
      ['a plain JSON answer', '{"answer": 42}'],
      ['a JSON answer with spaces', '{ "city": "Paris" }'],
      ['a reply that opens with whitespace', '\nHello.'],
      ['a reply that opens with `<`', '<b>Hi</b>'],
    ])('%s is prose', async (_, reply) => {
      const format = await formatFor(LLAMA);
      expect(await responseFormatAccepts(format, reply)).toBe(true);
      const chunks = assemble(LLAMA, reply);
      expect([text(chunks), callsOf(chunks)]).toEqual([reply, []]);
    });

    it.each([
      ['bad arguments', '{"name": "get_weather", "parameters": {"town": "x"}}'],
      ['an unknown tool', '{"name": "get_wether", "parameters": {"city": "x"}}'],
      ['a call after whitespace', ' {"name": "get_weather", "parameters": {"town": "x"}}'],
      ['a spaced-out opening', '{ "name" : "get_weather", "parameters": {"town": "x"}}'],
      ['the python tag then anything', '<|python_tag|>print(1)'],
    ])('%s is refused', async (_, reply) => {
      expect(await responseFormatAccepts(await formatFor(LLAMA), reply)).toBe(false);
    });

    it('a call is still a call, and a JSON answer before a call-shaped object keeps it text', async () => {
      const format = await formatFor(LLAMA);
      const call = '{"name": "get_weather", "parameters": {"city": "Paris"}}';
      expect(await responseFormatAccepts(format, call)).toBe(true);
      expect(callsOf(assemble(LLAMA, call))).toEqual([PARIS]);
      const after = assemble(LLAMA, `{"answer": 1} ${call}`);
      expect([text(after), callsOf(after)]).toEqual([`{"answer": 1} ${call}`, []]);
    });

    it('Llama’s real tokens: the JSON answer passes token by token', async () => {
      const run = await matchTokens(await formatFor(LLAMA), llama3Tokenizer(), '{"answer": 42}');
      expect(run.complete).toBe(true);
    });
  });
});
