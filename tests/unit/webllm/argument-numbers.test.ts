/**
 * History arguments keep the client's numbers (issue 44 §6): a call's arguments are parsed with each
 * number kept as its text and written as llama.cpp's Jinja writes it (`tojson`, `| string`: C++'s
 * `%g`), not as JavaScript re-serialises it (`1e20` as `100000000000000000000`). The renderings
 * llama.cpp's `/apply-template` gives are checked whole in tests/integration/goldens-llama-cpp*.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { familyOf } from '../../../src/engine/tool-formats';
import { isRecord, JsonNumber, parsedArguments, pyJson } from '../../../src/engine/tool-formats/json-text';

const spelled = (text: string) => new JsonNumber(text).spelled;

describe('a number as llama.cpp writes it', () => {
  it.each([
    // What llama.cpp's /apply-template writes for each (its `tojson` of the client's value).
    ['1e20', '1e+20'],
    ['1e-7', '1e-07'],
    ['1.0', '1'],
    ['1e16', '1e+16'],
    ['1.5E+3', '1500'],
    ['0.0001', '0.0001'],
    ['0.00001', '1e-05'],
    ['123456.0', '123456'],
    ['0.1', '0.1'],
    ['-2.5e-10', '-2.5e-10'],
    ['-0.0', '-0'],
    ['2.50', '2.5'],
    ['1e300', '1e+300'],
    ['5e-324', '4.94066e-324'],
    ['1e6', '1e+06'],
    // Integers that fit 64 bits keep their digits; a longer one is the double llama.cpp reads.
    ['1000000', '1000000'],
    ['9223372036854775807', '9223372036854775807'],
    ['100000000000000000000', '1e+20'],
  ])('%s → %s', (text, out) => {
    expect(spelled(text)).toBe(out);
  });

  it('keeps the digits where llama.cpp’s six would round them away', () => {
    // llama.cpp writes 3.14159 and 1.23457e+06: a value the client did not send.
    expect(spelled('3.14159265')).toBe('3.14159265');
    expect(spelled('1234567.0')).toBe('1234567');
    expect(spelled('1.7976931348623157e308')).toBe('1.7976931348623157e+308');
  });
});

describe('parsedArguments', () => {
  const text =
    '{"big": 1e20, "small": 1e-7, "f": 1.0, "list": [1e16, {"n": -0.0}], "s": "1e20", "__proto__": 1}';

  it('writes the value back with the numbers spelled, or as the client wrote them', () => {
    const args = parsedArguments(text);
    expect(pyJson(args)).toBe(
      '{"big": 1e+20, "small": 1e-07, "f": 1, "list": [1e+16, {"n": -0}], "s": "1e20", "__proto__": 1}',
    );
    expect(pyJson(args, 'as written')).toBe(text);
    expect(Object.keys(args as object)).toEqual(Object.keys(JSON.parse(text)));
  });

  it('reads JSON.parse’s value otherwise: a repeated key’s last, a number as no record, text as itself', () => {
    expect(pyJson(parsedArguments('{"a": 1, "b": 2, "a": 3e0}'))).toBe('{"a": 3, "b": 2}');
    expect(isRecord(parsedArguments('5'))).toBe(false);
    expect(parsedArguments('not json')).toBe('not json');
  });
});

describe('each family writes a past call’s numbers so', () => {
  const call = [
    { name: 'get_weather', arguments: '{"big": 1e20, "small": 1e-7, "f": 1.0}', callId: 'call_1' },
  ];
  it.each([
    [
      'Qwen3-0.6B',
      '<tool_call>\n{"name": "get_weather", "arguments": {"big": 1e+20, "small": 1e-07, "f": 1}}\n</tool_call>',
    ],
    [
      'Qwen3.5-4B',
      '<tool_call>\n<function=get_weather>\n<parameter=big>\n1e+20\n</parameter>\n<parameter=small>\n1e-07\n</parameter>\n<parameter=f>\n1\n</parameter>\n</function>\n</tool_call>',
    ],
    [
      'Llama-3.2-1B-Instruct',
      '{"name": "get_weather", "parameters": {"big": 1e+20, "small": 1e-07, "f": 1}}',
    ],
    ['Ministral-3-3B-Reasoning-2512', '[TOOL_CALLS]get_weather[ARGS]{"big": 1e+20, "small": 1e-07, "f": 1}'],
  ])('%s', (model, out) => {
    expect(familyOf(model).tools.renderCalls(call)).toBe(out);
  });
});
