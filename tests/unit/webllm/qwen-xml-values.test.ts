/**
 * Qwen3.5's parameter values as its published template writes them (`args_value | string`: raw text
 * that "can span multiple lines") and Qwen's parser (vLLM's `qwen3_coder`) reads them: the text up to
 * the closing `</parameter>`, less one newline each side, with no escapes and no entities. The grammar
 * web-llm receives (planned, then its JSON whitespace bounded as the engine does) is compiled with the
 * real web-xgrammar 0.1.27; what it accepts must reach the client as the arguments the call had.
 */
import { readFileSync } from 'node:fs';
import { Template } from '@huggingface/jinja';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CallStream } from '../../../src/engine/tool-formats/call-stream';
import { familyOf } from '../../../src/engine/tool-formats/model-family';
import type { FunctionToolSpec, GenerateRequest } from '../../../src/engine/types';
import { boundJsonWhitespace, type XGrammarLike } from '../../../src/engine/webllm/webllm-grammar';
import { planChatRequest } from '../../../src/engine/webllm/webllm-request';
import { qwen3 } from '../../helpers/tokenizers';
import { request } from '../../helpers/webllm-fakes';
import { matchTokens, xgrammar } from '../../helpers/xgrammar';

const MODEL = 'Qwen3.5-0.8B-q4f16_1-MLC';
const format = familyOf(MODEL).tools;
const THINK = 'Writing it.\n</think>\n\n';
/** What ends a value, so no string value can hold it (nor end with its first line). */
const VALUE_END = '\n</parameter>\n';
const expressible = (s: string) => !`${s}\n`.includes(VALUE_END);

const writeFile: FunctionToolSpec = {
  name: 'write_file',
  description: 'Write a file.',
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string' },
      content: { type: 'string' },
      mode: { type: 'integer' },
      meta: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } } },
    },
    required: ['path', 'content'],
  },
  strict: null,
};
const anyArgs: FunctionToolSpec = {
  name: 'log',
  description: null,
  parameters: { type: 'object' },
  strict: null,
};

/** The `response_format` the engine hands web-llm, compiled once per test. */
async function grammarFor(over: Partial<GenerateRequest> = {}) {
  const { body } = planChatRequest(request({ model: MODEL, tools: [writeFile, anyArgs], ...over }), {
    vision: false,
  });
  const xg = await xgrammar();
  const bounded = await boundJsonWhitespace(xg as unknown as XGrammarLike, body.response_format);
  const tag = bounded?.type === 'structural_tag' ? bounded.structural_tag : null;
  const grammar = await xg.Grammar.fromStructuralTag(tag as never);
  return {
    format: bounded ?? {},
    accepts: (text: string) => xg.Testings.isGrammarAcceptString(grammar, text),
    dispose: () => grammar.dispose(),
  };
}

/** The call as the published template writes it in history (and as the model writes it). */
function published(args: Record<string, unknown>, name = 'write_file'): string {
  const source = readFileSync(new URL('../../fixtures/templates/Qwen3.5-4B.jinja', import.meta.url), 'utf8');
  const text = new Template(source).render({
    messages: [
      { role: 'user', content: 'Go.' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ type: 'function', function: { name, arguments: args } }],
      },
    ],
  });
  const start = text.indexOf('<tool_call>');
  // The call is the last thing of the one assistant turn (a value may hold `</tool_call>` itself).
  return text.slice(start, text.lastIndexOf('</tool_call>') + '</tool_call>'.length);
}

/** The calls read from `text` streamed whole, and in 5-character deltas: both must agree. */
function parse(text: string, tools = [writeFile, anyArgs]) {
  const read = (pieces: string[]) => {
    const stream = new CallStream(format, tools);
    const out = [...pieces.flatMap((p) => stream.push(p)), ...stream.finish()];
    return out.flatMap((p) => (p.type === 'calls' ? p.calls : []));
  };
  const whole = read([text]);
  expect(read(text.match(/[\s\S]{1,5}/g) ?? [])).toEqual(whole);
  return whole;
}

const HARD = [
  'a </parameter> b',
  'ends the call? </tool_call> no',
  '</parameter>\nfirst',
  '<parameter=x>\n</function>',
  'line1\nline2',
  'if a < b: pass',
  'a && b',
  '<p class="x">&amp; é</p>',
  'x > 1\n',
  '\n</param',
  'a\\nb',
];

describe('Qwen3.5 string arguments are raw text up to </parameter>', () => {
  it.each(HARD)('%j is accepted by the grammar and reaches the client exactly', async (content) => {
    const g = await grammarFor();
    try {
      const args = { path: 'a.py', content };
      const text = published(args);
      expect(text).toBe(
        format.renderCalls([{ name: 'write_file', arguments: JSON.stringify(args), callId: 'c' }]),
      );
      expect(await g.accepts(THINK + text)).toBe(true);
      expect(parse(text)).toEqual([{ name: 'write_file', arguments: JSON.stringify(args) }]);
    } finally {
      g.dispose();
    }
  });

  it('decodes no entity and no escape: `a &lt; b` and a backslash-n stay as written', () => {
    const text = published({ path: 'p', content: 'a &lt; b \\n' });
    expect(JSON.parse(parse(text)[0]?.arguments ?? '{}').content).toBe('a &lt; b \\n');
  });

  it('a value holding `\\n</parameter>\\n` is the one thing it cannot say: the value ends there', async () => {
    const g = await grammarFor();
    try {
      expect(await g.accepts(THINK + published({ path: 'p', content: 'a\n</parameter>\nb' }))).toBe(false);
      expect(await g.accepts(THINK + published({ path: 'p', content: 'a\n</parameter>' }))).toBe(false);
    } finally {
      g.dispose();
    }
  });

  it('any text without it round-trips (property, 150 runs, one compiled grammar)', async () => {
    const g = await grammarFor();
    const text = fc
      .string({
        unit: fc.constantFrom(
          '<',
          '>',
          '&',
          '/',
          '\n',
          ' ',
          'a',
          'é',
          '"',
          '\\',
          '\t',
          '</parameter>',
          '</tool_call>',
          '</function>',
          '<parameter=x>',
        ),
      })
      .filter(expressible);
    try {
      await fc.assert(
        fc.asyncProperty(text, async (content) => {
          const args = { path: 'f', content };
          const call = published(args);
          expect(await g.accepts(THINK + call)).toBe(true);
          expect(parse(call)).toEqual([{ name: 'write_file', arguments: JSON.stringify(args) }]);
        }),
        { numRuns: 150, seed: 28 },
      );
    } finally {
      g.dispose();
    }
  });

  it('a schema without properties takes raw values too, `<` included', async () => {
    const g = await grammarFor();
    try {
      const call = published({ code: 'if a < b:\n  pass' }, 'log');
      expect(await g.accepts(THINK + call)).toBe(true);
      expect(parse(call)).toEqual([{ name: 'log', arguments: '{"code":"if a < b:\\n  pass"}' }]);
    } finally {
      g.dispose();
    }
  });
});

describe('Qwen3.5 typed arguments and whitespace', () => {
  it('types a value by its schema: an integer must be one, an object is JSON', async () => {
    const g = await grammarFor();
    try {
      const args = { path: 'p', content: 'c', mode: 644, meta: { tags: ['a', 'b'] } };
      const call = published(args);
      expect(await g.accepts(THINK + call)).toBe(true);
      expect(parse(call)).toEqual([{ name: 'write_file', arguments: JSON.stringify(args) }]);
      expect(await g.accepts(THINK + published({ path: 'p', content: 'c', mode: '64x' }))).toBe(false);
    } finally {
      g.dispose();
    }
  });

  it('bounds the whitespace between parameters and inside JSON values', async () => {
    const g = await grammarFor();
    const head = '<tool_call>\n<function=write_file>\n<parameter=path>\np\n</parameter>\n';
    const tail = '</function>\n</tool_call>';
    try {
      expect(await g.accepts(`${THINK}${head}<parameter=content>\nc\n</parameter>\n${tail}`)).toBe(true);
      // Between parameters: the template's one newline, not any run of whitespace.
      expect(await g.accepts(`${THINK}${head}\n\n\n\n<parameter=content>\nc\n</parameter>\n${tail}`)).toBe(
        false,
      );
      const meta = (ws: string) =>
        `${THINK}${head}<parameter=content>\nc\n</parameter>\n<parameter=meta>\n{${ws}"tags": []}\n</parameter>\n${tail}`;
      expect(await g.accepts(meta('\n  '))).toBe(true);
      expect(await g.accepts(meta(' '.repeat(200)))).toBe(false);
    } finally {
      g.dispose();
    }
  });

  it('compiles under every tool choice and with a JSON text.format beside the tools', async () => {
    const call = THINK + published({ path: 'a', content: 'x <\n y' });
    const json = { type: 'json_schema' as const, name: 'a', schema: { type: 'object' }, strict: false };
    for (const over of [
      { toolChoice: 'required' as const },
      { parallelToolCalls: false },
      { format: json },
    ]) {
      const g = await grammarFor(over);
      try {
        expect(await g.accepts(call)).toBe(true);
      } finally {
        g.dispose();
      }
    }
  });

  it('compiles over a real Qwen vocabulary and takes a multi-line value token by token', async () => {
    const tokenizer = qwen3();
    const { format: f, dispose } = await grammarFor({ toolChoice: 'required' });
    dispose();
    const text = `${THINK}${published({ path: 'a.py', content: 'if a < b:\n    print("a && b")' })}`;
    const ids = tokenizer.encode(text);
    expect(await matchTokens(f as never, tokenizer, text)).toEqual({ accepted: ids.length, complete: true });
  });
});
