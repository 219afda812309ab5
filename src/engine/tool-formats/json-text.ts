/**
 * JSON the way chat templates write it, and where a JSON value ends inside streamed text (calls are
 * followed by prose or by the next call, never by a delimiter we can trust): common's scanner.
 */
import { JsonValueScanner } from '../../common/json-scan';

/**
 * `JSON.stringify` with Python `json.dumps` separators (`", "`, `": "`), which is what HF chat
 * templates' `tojson` renders and therefore what models were trained to read and write.
 *
 * @example
 * pyJson({ name: 'f', arguments: { a: 1 } }); // '{"name": "f", "arguments": {"a": 1}}'
 *
 * `numbers` says how a {@link JsonNumber} is written: as llama.cpp's `tojson` spells it, or as the
 * client wrote it (for llama.cpp itself to read and spell).
 */
export function pyJson(value: unknown, numbers: 'spelled' | 'as written' = 'spelled'): string {
  if (value instanceof JsonNumber) return numbers === 'spelled' ? value.spelled : value.text;
  if (Array.isArray(value)) return `[${value.map((v) => pyJson(v, numbers)).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${pyJson(v, numbers)}`).join(', ')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Python `json.dumps(value, indent=n)`: one item per line, `", "` becomes `","` at line ends.
 *
 * @example
 * pyJsonIndent({ a: [1] }, 4); // '{\n    "a": [\n        1\n    ]\n}'
 */
export function pyJsonIndent(value: unknown, indent: number, depth = 0): string {
  const pad = (d: number) => ' '.repeat(indent * d);
  if (value instanceof JsonNumber) return value.spelled;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map((v) => pad(depth + 1) + pyJsonIndent(v, indent, depth + 1));
    return `[\n${items.join(',\n')}\n${pad(depth)}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return '{}';
    const items = entries.map(
      ([k, v]) => `${pad(depth + 1)}${JSON.stringify(k)}: ${pyJsonIndent(v, indent, depth + 1)}`,
    );
    return `{\n${items.join(',\n')}\n${pad(depth)}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Where the JSON value starting at `start` (after whitespace) ends: the index just past it, or -1
 * while it is still incomplete or is no object or array. Only brackets and strings are tracked;
 * validity is JSON.parse's job.
 *
 * @example
 * jsonEnd('{"a": "}"} and more', 0); // 10
 * jsonEnd('{"a": [1, ', 0); // -1
 */
export function jsonEnd(text: string, start: number): number {
  return new JsonValueScanner('container').scan(text, start);
}

/**
 * `JSON.parse` that answers undefined instead of throwing.
 *
 * @example
 * tryJson('{"a":1}'); // {a: 1}
 * tryJson('{'); // undefined
 */
export function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Arguments as the wire wants them: a JSON string of an object. */
export function argumentsText(args: unknown): string | null {
  const value = typeof args === 'string' ? tryJson(args) : args;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  return JSON.stringify(value);
}

/**
 * `arguments` of a call in history: the value, its numbers as {@link JsonNumber}s so that they are
 * written as the client spelled them (in the reference's spelling), or the raw string when it is not JSON.
 *
 * @example
 * pyJson(parsedArguments('{"big":1e20}')); // '{"big": 1e+20}' (JSON.parse would give 100000000000000000000)
 */
export function parsedArguments(args: string): unknown {
  return tryJson(args) === undefined ? args : keepingNumbers(args);
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);
}

/**
 * A number of a client's JSON text, kept as its text: a JavaScript number would be written back in
 * JavaScript's spelling (`1e20` as `100000000000000000000`, `1e-7` as `1e-7`), where the templates'
 * `tojson` and `| string`, in llama.cpp's Jinja (the reference renderer), write `1e+20` and `1e-07`.
 */
export class JsonNumber {
  constructor(readonly text: string) {}

  /**
   * As llama.cpp writes the number: an integer that fits 64 bits as its digits; any other number
   * as the double it reads, in C++'s `%g` layout (an exponent of at least two digits, with its sign,
   * below 1e-4 or from 10^P on; no trailing zeros, so `1.0` is `1`). llama.cpp prints P = 6
   * significant digits and so rounds `3.14159265` to `3.14159`; here P grows to the digits the value
   * needs, so where llama.cpp keeps the value the spelling is its own, and no value is rounded.
   */
  get spelled(): string {
    if (/^-?\d+$/.test(this.text)) {
      const n = BigInt(this.text);
      if (n >= -(2n ** 63n) && n < 2n ** 64n) return n.toString();
    }
    return spellDouble(Number(this.text));
  }
}

function spellDouble(v: number): string {
  if (!Number.isFinite(v)) return 'null';
  if (Object.is(v, -0)) return '-0';
  // P: six digits, or the shortest that read back as `v` where it needs more; the digits rounded to
  // P as `%g` rounds them (a subnormal's six exceed its shortest), trailing zeros dropped.
  const shortest = Math.abs(v).toExponential().split('e')[0] as string;
  const p = Math.max(6, shortest.replace('.', '').length);
  const [mantissa, exponent] = Math.abs(v)
    .toExponential(p - 1)
    .split('e') as [string, string];
  const digits = mantissa.replace('.', '').replace(/(?<=.)0+$/, '');
  const x = Number(exponent);
  const sign = v < 0 ? '-' : '';
  if (x < -4 || x >= p) {
    const rest = digits.length > 1 ? `.${digits.slice(1)}` : '';
    return `${sign}${digits[0]}${rest}e${x < 0 ? '-' : '+'}${String(Math.abs(x)).padStart(2, '0')}`;
  }
  if (x < 0) return `${sign}0.${'0'.repeat(-x - 1)}${digits}`;
  const whole = digits.slice(0, x + 1).padEnd(x + 1, '0');
  const fraction = digits.slice(x + 1);
  return `${sign}${whole}${fraction ? `.${fraction}` : ''}`;
}

const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * The value of valid JSON `text` with every number a {@link JsonNumber}. Object members keep
 * JSON.parse's order and its last-wins reading of a repeated key.
 */
function keepingNumbers(text: string): unknown {
  let i = 0;
  const skip = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  };
  const string = (): string => {
    const start = i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (): unknown => {
    skip();
    const c = text[i];
    if (c === '"') return string();
    if (c === '{') {
      i++;
      const out: Record<string, unknown> = {};
      for (skip(); text[i] !== '}'; skip()) {
        if (text[i] === ',') i++;
        skip();
        const key = string();
        skip();
        i++; // ':'
        // `__proto__` is a member here, as JSON.parse makes it, not the object's prototype.
        Object.defineProperty(out, key, {
          value: value(),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      i++;
      return out;
    }
    if (c === '[') {
      i++;
      const out: unknown[] = [];
      for (skip(); text[i] !== ']'; skip()) {
        if (text[i] === ',') i++;
        out.push(value());
      }
      i++;
      return out;
    }
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text) as RegExpExecArray;
    i += m[0].length;
    return new JsonNumber(m[0]);
  };
  return value();
}
