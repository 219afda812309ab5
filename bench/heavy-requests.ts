/**
 * The big-but-legal requests `max_event_loop_block_ms` serves (issue 27, item 4): each under 1 MB
 * but one just under the 16 MiB body cap, each one an app might send by accident, each answered as
 * `status` says. The bench sends them
 * through the service worker while other streams run and reports the engine worker's longest
 * synchronous block; `tests/integration/heavy-request-blocks.test.ts` runs the same set in Node.
 *
 * Every call builds fresh bodies (a `salt` in names and patterns), so no cache of compiled schemas
 * or patterns from an earlier run hides what a new schema costs.
 */

/** One request of the set: where it goes and its JSON body. */
export interface HeavyRequest {
  name: string;
  path: '/v1/responses' | '/v1/chat/completions';
  body: Record<string, unknown>;
  /** The status it must get: 400 for an input no truncation can fit (the scripted model's 4096 tokens). */
  status: 200 | 400;
}

const KB = 1024;

/**
 * A strict object schema `depth` levels deep with `width` properties per level: leaves are strings
 * (with a pattern, unless `patterns` is false), enums, integers with bounds and short arrays (what a
 * large Zod form model turns into). Width 4 and depth 6 make about 410 KB without patterns.
 */
export function nestedSchema(
  width: number,
  depth: number,
  salt: string,
  patterns = true,
): Record<string, unknown> {
  let leaf = 0;
  const node = (level: number): Record<string, unknown> => {
    if (level === depth) {
      const n = leaf++;
      switch (n % 4) {
        case 0:
          // The scripted model writes no pattern's strings: strict schemas for it leave patterns out.
          return patterns
            ? { type: 'string', pattern: `^[a-z]{1,8}${salt}${n}$`, description: `field ${n}` }
            : { type: 'string', maxLength: 64, description: `field ${n} ${salt}` };
        case 1:
          return { type: 'string', enum: [`a${n}`, `b${n}`, `c${n}`] };
        case 2:
          return { type: 'integer', minimum: 0, maximum: 1000 + n };
        default:
          return { type: 'array', items: { type: 'string', maxLength: 16 }, maxItems: 3 };
      }
    }
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < width; i++) properties[`p${level}_${i}`] = node(level + 1);
    return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
  };
  return node(0);
}

/**
 * A strict schema whose smallest instance is `rows` objects of three fields: the scripted model
 * writes all of them, and the strict output check judges each (20,000 rows took ~110 ms in one step).
 */
export function rowsSchema(rows: number, salt: string): Record<string, unknown> {
  const row = {
    type: 'object',
    properties: {
      id: { type: 'integer', minimum: 0 },
      name: { type: 'string', maxLength: 64, description: `name ${salt}` },
      tag: { type: 'string', enum: [`t${salt}`, 'other'] },
    },
    required: ['id', 'name', 'tag'],
    additionalProperties: false,
  };
  return {
    type: 'object',
    properties: { rows: { type: 'array', items: row, minItems: rows } },
    required: ['rows'],
    additionalProperties: false,
  };
}

let words16MiB: string | null = null;
/**
 * 8 million one-letter words, made once: every call of {@link heavyRequests} builds every body, and a
 * fresh 16 MiB string each time would weigh on the other requests' measured turns (the salt in front
 * keeps each body new).
 */
function filler(): string {
  words16MiB ??= 'w '.repeat((16 * KB * KB - 1024) / 2);
  return words16MiB;
}

/** `n` words, about 6 bytes each. */
function words(n: number, salt: string): string {
  let s = '';
  for (let i = 0; i < n; i++) s += `${i === 0 ? '' : ' '}w${salt}${i % 997}`;
  return s;
}

/**
 * The set, with fresh bodies. `salt` makes each call's schemas and patterns new.
 *
 * @example
 * for (const r of heavyRequests(String(Date.now()))) await fetch(r.path, { method: 'POST', body: JSON.stringify(r.body) });
 */
export function heavyRequests(salt: string): HeavyRequest[] {
  const schema = nestedSchema(4, 6, salt, false);
  const format = { type: 'json_schema', name: `form_${salt}`, strict: true, schema };
  // Not strict, so the scripted model's output need not match its 782 patterns; each is compiled.
  const patterned = nestedSchema(5, 5, `${salt}p`);
  const tools = Array.from({ length: 128 }, (_, i) => ({
    type: 'function',
    name: `tool_${i}_${salt}`,
    description: `Tool ${i}`,
    parameters: nestedSchema(4, 3, `${salt}t${i}`),
    strict: true,
  }));
  return [
    {
      name: '6-deep strict json_schema (responses)',
      path: '/v1/responses',
      body: { model: 'scripted', input: 'fill the form', store: false, text: { format } },
      status: 200,
    },
    {
      name: 'nested json_schema with 782 patterns (chat completions)',
      path: '/v1/chat/completions',
      body: {
        model: 'scripted',
        messages: [{ role: 'user', content: 'fill the form' }],
        response_format: {
          type: 'json_schema',
          json_schema: { name: format.name, strict: false, schema: patterned },
        },
      },
      status: 200,
    },
    {
      name: '128 strict tools (~600 KB)',
      path: '/v1/responses',
      body: { model: 'scripted', input: 'hello', store: false, tools, tool_choice: 'none' },
      status: 200,
    },
    {
      name: 'strict output of 20,000 objects (responses)',
      path: '/v1/responses',
      body: {
        model: 'scripted',
        input: 'list them',
        store: false,
        text: {
          format: {
            type: 'json_schema',
            name: `rows_${salt}`,
            strict: true,
            schema: rowsSchema(20_000, salt),
          },
        },
      },
      status: 200,
    },
    {
      name: 'strict output of 20,000 objects (chat completions)',
      path: '/v1/chat/completions',
      body: {
        model: 'scripted',
        messages: [{ role: 'user', content: 'list them' }],
        response_format: {
          type: 'json_schema',
          json_schema: { name: `rows_${salt}`, strict: true, schema: rowsSchema(20_000, salt) },
        },
      },
      status: 200,
    },
    {
      name: '900 KB of text input (too long for the context: a 400)',
      path: '/v1/responses',
      body: { model: 'scripted', input: words(150_000, salt).slice(0, 900 * KB), store: false },
      status: 400,
    },
    {
      // Just under the 16 MiB body cap: 8 million words the scripted model once split into strings (~1 s).
      name: '16 MiB of text input (just under the body cap: a 400)',
      path: '/v1/responses',
      body: { model: 'scripted', input: `${salt} ${filler()}`, store: false },
      status: 400,
    },
    {
      name: '22k messages, truncation auto',
      path: '/v1/responses',
      body: {
        model: 'scripted',
        truncation: 'auto',
        store: false,
        input: Array.from({ length: 22_000 }, (_, i) => ({
          role: i % 2 ? 'assistant' : 'user',
          // The salt once (a history has no cache to miss): the body stays near 920 KB.
          content: i === 0 ? `m${salt} a b` : `m${i} a b`,
        })),
      },
      status: 200,
    },
  ];
}
