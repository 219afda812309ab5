/**
 * Issue 33 §8: Qwen3.5's template writes a parameter value that is no string, mapping or list with
 * `| string`, Python's `str`: `True`, `False`, `None`. intab writes past calls that way on both
 * engines, both grammars admit the template's spelling (and JSON's), and the parser reads it back as
 * JSON's true/false/null. The expected history text is what llama.cpp's own renderer (`llama-server`
 * `/apply-template` with the published Qwen3.5 template) writes for these arguments.
 */
import { describe, expect, it } from 'vitest';
import { CallStream } from '../../../src/engine/tool-formats/call-stream';
import { familyOf } from '../../../src/engine/tool-formats/model-family';
import type { ChatMessage, FunctionToolSpec } from '../../../src/engine/types';
import { boundJsonWhitespace, type XGrammarLike } from '../../../src/engine/webllm/webllm-grammar';
import { planChatRequest } from '../../../src/engine/webllm/webllm-request';
import { planWllamaRequest } from '../../../src/engine/wllama/wllama-request';
import { gbnfMatches } from '../../helpers/gbnf-match';
import { generateRequest } from '../../helpers/generate-request';
import { forcedCallGrammar } from '../../helpers/tool-specs';
import { xgrammar } from '../../helpers/xgrammar';

const MODEL = 'Qwen3.5-0.8B-q4f16_1-MLC';
const format = familyOf(MODEL).tools;
const THINK = 'Setting it.\n</think>\n\n';

const settings: FunctionToolSpec = {
  name: 'set',
  description: 'Change settings.',
  parameters: {
    type: 'object',
    properties: {
      on: { type: 'boolean' },
      limit: { type: ['integer', 'null'] },
      mode: { enum: [true, false, 'auto'] },
      reset: { const: null },
      note: { type: ['string', 'null'] },
    },
    required: ['on'],
    additionalProperties: false,
  },
  strict: true,
};

const ARGS = { on: true, limit: null, mode: false, list: [true, null], obj: { x: false }, n: 3, s: 'True' };
/** llama-server's `/apply-template` of the published template, for a call with {@link ARGS}. */
const RENDERED =
  '<tool_call>\n<function=set>\n' +
  '<parameter=on>\nTrue\n</parameter>\n<parameter=limit>\nNone\n</parameter>\n' +
  '<parameter=mode>\nFalse\n</parameter>\n<parameter=list>\n[true, null]\n</parameter>\n' +
  '<parameter=obj>\n{"x": false}\n</parameter>\n<parameter=n>\n3\n</parameter>\n' +
  '<parameter=s>\nTrue\n</parameter>\n</function>\n</tool_call>';

const history: ChatMessage[] = [
  { role: 'user', content: 'Turn it on.' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c1', type: 'function', function: { name: 'set', arguments: JSON.stringify(ARGS) } }],
  },
  { role: 'tool', tool_call_id: 'c1', name: 'set', content: 'done' },
];

function call(params: Array<[string, string]>): string {
  const body = params.map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>\n`).join('');
  return `<tool_call>\n<function=set>\n${body}</function>\n</tool_call>`;
}

/** A call with `name` set to `raw` (and the required `on`, True, before it). */
function withParameter(name: string, raw: string): string {
  return name === 'on'
    ? call([[name, raw]])
    : call([
        ['on', 'True'],
        [name, raw],
      ]);
}

function readBack(text: string): unknown {
  const stream = new CallStream(format, [settings]);
  const calls = [...stream.push(text), ...stream.finish()].flatMap((p) =>
    p.type === 'calls' ? p.calls : [],
  );
  expect(calls).toHaveLength(1);
  return JSON.parse(calls[0]?.arguments as string);
}

const TEMPLATE_FORM: Array<[string, string, unknown]> = [
  ['on', 'True', true],
  ['on', 'False', false],
  ['limit', 'None', null],
  ['mode', 'True', true],
  ['mode', 'False', false],
  ['reset', 'None', null],
];

describe('Qwen3.5 history: non-string values as the template writes them', () => {
  it('renders True, False and None bare, containers as JSON, strings as themselves', () => {
    expect(format.renderCalls([{ name: 'set', arguments: JSON.stringify(ARGS), callId: 'c1' }])).toBe(
      RENDERED,
    );
  });

  it('both engines send that text for a past call', async () => {
    const { body } = planChatRequest(
      generateRequest({ model: MODEL, tools: [settings], messages: history }),
      {
        vision: false,
      },
    );
    expect(JSON.stringify(body.messages)).toContain(JSON.stringify(RENDERED).slice(1, -1));
    const { params } = await planWllamaRequest(
      generateRequest({ model: MODEL, tools: [settings], messages: history }),
      { family: familyOf(MODEL), invalidUtf8: [] },
    );
    expect(JSON.stringify(params.messages)).toContain(JSON.stringify(RENDERED).slice(1, -1));
  });
});

describe('Qwen3.5 grammars take the template’s spelling, and the parser reads it as JSON', () => {
  it('wllama: True/False/None where the schema allows them, read back as true/false/null', async () => {
    const g = await forcedCallGrammar(format, [settings]);
    for (const [name, raw, value] of TEMPLATE_FORM) {
      const text = withParameter(name, raw);
      expect(gbnfMatches(g, text), text).toBe(true);
      expect(readBack(text)).toMatchObject({ [name]: value });
    }
    // JSON's spelling still holds; other spellings, and None where null is not allowed, do not.
    expect(gbnfMatches(g, call([['on', 'true']]))).toBe(true);
    expect(readBack(call([['on', 'false']]))).toEqual({ on: false });
    expect(gbnfMatches(g, call([['on', 'TRUE']]))).toBe(false);
    expect(gbnfMatches(g, call([['on', 'None']]))).toBe(false);
    // A string parameter keeps the text: `True` there is four characters.
    expect(
      readBack(
        call([
          ['on', 'True'],
          ['note', 'True'],
        ]),
      ),
    ).toEqual({ on: true, note: 'True' });
  });

  it('web-llm: the structural tag, compiled by the real xgrammar, takes them too', async () => {
    const { body } = planChatRequest(generateRequest({ model: MODEL, tools: [settings] }), { vision: false });
    const xg = await xgrammar();
    const bounded = await boundJsonWhitespace(xg as unknown as XGrammarLike, body.response_format);
    const tag = bounded?.type === 'structural_tag' ? bounded.structural_tag : null;
    const grammar = await xg.Grammar.fromStructuralTag(tag as never);
    try {
      const accepts = (text: string) => xg.Testings.isGrammarAcceptString(grammar, THINK + text);
      for (const [name, raw] of TEMPLATE_FORM) {
        const text =
          name === 'on'
            ? call([[name, raw]])
            : call([
                ['on', 'True'],
                [name, raw],
              ]);
        expect(await accepts(text), text).toBe(true);
      }
      expect(await accepts(call([['on', 'true']]))).toBe(true);
      expect(await accepts(call([['on', 'TRUE']]))).toBe(false);
      expect(await accepts(call([['on', 'None']]))).toBe(false);
    } finally {
      grammar.dispose();
    }
  });
});
