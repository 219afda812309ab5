/**
 * A Qwen3.5 tool whose schema lists no properties, on wllama: as on web-llm (freeParameters in
 * tool-formats/qwen-xml-arguments.ts), the call may pass up to MAX_FREE_PARAMETERS parameters of any
 * name, each value raw text up to `\n</parameter>\n`; a schema that closes the object allows none.
 * The grammar builder refused such a tool outright before (its content was a regex it cannot read),
 * and the old regex forbade `<` in a value.
 */
import { describe, expect, it } from 'vitest';
import { CallStream, familyOf } from '../../../src/engine/tool-formats';
import { MAX_FREE_PARAMETERS } from '../../../src/engine/tool-formats/qwen-xml-arguments';
import type { FunctionToolSpec } from '../../../src/engine/types';
import { requestGrammarPaced } from '../../../src/engine/wllama/grammar/request-grammar';
import { gbnfMatches, parseGbnf } from '../../helpers/gbnf-match';

const format = familyOf('Qwen3.5-4B').tools;
const grammarOf = async (tool: FunctionToolSpec) =>
  parseGbnf(
    (await requestGrammarPaced({
      format,
      tools: [tool],
      forced: true,
      parallel: false,
      maxToolCalls: null,
      output: { type: 'text' },
      thinking: null,
    })) as string,
  );
const call = (name: string, params: Array<[string, string]>) =>
  `<tool_call>\n<function=${name}>\n${params.map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>\n`).join('')}</function>\n</tool_call>`;

describe('Qwen3.5 tools without listed properties on wllama', () => {
  const run: FunctionToolSpec = { name: 'run', parameters: { type: 'object' }, strict: false };

  it('accepts any parameters with raw values, and reads them back', async () => {
    const g = await grammarOf(run);
    const text = call('run', [
      ['cmd', 'if a < b; then echo "x && y"; fi'],
      ['note', 'two\nlines'],
    ]);
    expect(gbnfMatches(g, text)).toBe(true);
    expect(gbnfMatches(g, call('run', []))).toBe(true);
    const stream = new CallStream(format, [run]);
    const calls = [...stream.push(text), ...stream.finish()].flatMap((p) =>
      p.type === 'calls' ? p.calls : [],
    );
    expect(calls.map((c) => JSON.parse(c.arguments))).toEqual([
      { cmd: 'if a < b; then echo "x && y"; fi', note: 'two\nlines' },
    ]);
  });

  it(`takes at most ${MAX_FREE_PARAMETERS} parameters`, async () => {
    const g = await grammarOf(run);
    const params = (n: number) => Array.from({ length: n }, (_, i): [string, string] => [`p${i}`, `${i}`]);
    expect(gbnfMatches(g, call('run', params(MAX_FREE_PARAMETERS)))).toBe(true);
    expect(gbnfMatches(g, call('run', params(MAX_FREE_PARAMETERS + 1)))).toBe(false);
  });

  it('a closed object with no properties takes none', async () => {
    const g = await grammarOf({
      name: 'now',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
      strict: true,
    });
    expect(gbnfMatches(g, '<tool_call>\n<function=now>\n</function>\n</tool_call>')).toBe(true);
    expect(gbnfMatches(g, call('now', [['a', '1']]))).toBe(false);
  });
});
