/**
 * Qwen3.5's `<parameter=…>` values on the llama.cpp engine, as on web-llm (issue 28, defect 1): a
 * string value is raw text from the newline after `<parameter=k>` to the first `\n</parameter>\n`
 * (newlines, `<`, `>`, `&` as they are, nothing decoded), an enum's members bare, other values JSON.
 * The GBNF is run by the independent recognizer (tests/helpers/gbnf-match.ts) and what it accepts is
 * read back by the call stream both engines use (tool-formats/qwen-xml-scan.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CallStream, familyOf } from '../../../src/engine/tool-formats';
import { requestGrammarPaced } from '../../../src/engine/wllama/grammar/request-grammar';
import { gbnfMatches, parseGbnf } from '../../helpers/gbnf-match';

const format = familyOf('Qwen3.5-4B').tools;
const writeFile = {
  name: 'write_file',
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string' },
      content: { type: 'string' },
      mode: { enum: ['w', 'a'] },
      lines: { type: 'integer' },
    },
    required: ['path', 'content'],
    additionalProperties: false,
  },
  strict: true,
};
const grammar = parseGbnf(
  (await requestGrammarPaced({
    format,
    tools: [writeFile],
    forced: true,
    parallel: false,
    maxToolCalls: null,
    output: { type: 'text' },
    thinking: null,
  })) as string,
);

function call(params: Array<[string, string]>): string {
  const body = params.map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>\n`).join('');
  return `<tool_call>\n<function=write_file>\n${body}</function>\n</tool_call>`;
}

function readBack(text: string): Record<string, unknown> {
  const stream = new CallStream(format, [writeFile]);
  const pieces = [...stream.push(text), ...stream.finish()];
  const calls = pieces.flatMap((p) => (p.type === 'calls' ? p.calls : []));
  expect(calls).toHaveLength(1);
  return JSON.parse(calls[0]?.arguments as string);
}

describe('Qwen3.5 raw parameter values on wllama', () => {
  it.each([
    'line1\nline2',
    'if a < b: pass',
    'a && b',
    '<div class="x">&amp;</div>',
    '</parameter> inside, then more',
    'ends with a newline\n',
    '',
  ])('accepts %j as a string value and reads it back exactly', (content) => {
    const text = call([
      ['path', 'f.py'],
      ['content', content],
    ]);
    expect(gbnfMatches(grammar, text)).toBe(true);
    expect(readBack(text)).toEqual({ path: 'f.py', content });
  });

  it('refuses a value holding the end `\\n</parameter>\\n`, or one character short of it at its end', () => {
    for (const content of ['a\n</parameter>\nb', 'a\n</parameter>'])
      expect(
        gbnfMatches(
          grammar,
          call([
            ['path', 'f'],
            ['content', content],
          ]),
        ),
      ).toBe(false);
  });

  it('writes an enum member bare and other values as JSON, read back typed', () => {
    const text = call([
      ['path', 'f'],
      ['content', 'x'],
      ['mode', 'a'],
      ['lines', '3'],
    ]);
    expect(gbnfMatches(grammar, text)).toBe(true);
    expect(readBack(text)).toEqual({ path: 'f', content: 'x', mode: 'a', lines: 3 });
    expect(
      gbnfMatches(
        grammar,
        call([
          ['path', 'f'],
          ['content', 'x'],
          ['mode', '"a"'],
        ]),
      ),
    ).toBe(false);
    expect(
      gbnfMatches(
        grammar,
        call([
          ['path', 'f'],
          ['content', 'x'],
          ['lines', 'three'],
        ]),
      ),
    ).toBe(false);
  });

  it('accepts exactly the string values the scanner reads back whole (property, 300 runs)', () => {
    const piece = fc.constantFrom(
      '\n',
      '<',
      '>',
      '&',
      '/',
      'parameter',
      '</parameter>',
      'a',
      ' ',
      '</function>',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (parts) => {
        const content = parts.join('');
        const text = call([
          ['path', 'p'],
          ['content', content],
        ]);
        const endsEarly = `${content}\n</parameter>\n`.indexOf('\n</parameter>\n') < content.length;
        expect(gbnfMatches(grammar, text)).toBe(!endsEarly);
        if (!endsEarly) expect(readBack(text)).toEqual({ path: 'p', content });
      }),
      { numRuns: 300, seed: 28 },
    );
  });
});
