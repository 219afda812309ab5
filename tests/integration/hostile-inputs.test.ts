/**
 * A corpus of hostile and malformed requests (issue 15, input classes 1–9) against the core in Node.
 * For every one: no 5xx, OpenAI's error body (or a normal answer, for the hostile inputs that are
 * valid), nothing stored for a refusal, and no request under 1 MB that keeps the event loop busy for
 * 100 ms or more. The exact status, code, param and wording of each class are asserted beside it, in
 * router-paths, input-rules and json-schema-requests.
 */
import { describe, expect, it } from 'vitest';
import { fastestBlock } from '../helpers/event-loop';
import { freshen } from '../helpers/fresh-input';
import { BASE, makeRig } from '../helpers/server';
import { validateErrorBody } from '../helpers/spec';
import { inConversation, seedConversation, storeContents } from '../helpers/store-contents';

type Hostile = { name: string; method?: string; path: string; body?: unknown };

const deep = (n: number) => `${'['.repeat(n)}0${']'.repeat(n)}`;
const big = (n: number, c = 'x') => c.repeat(n);
const create = (extra: Record<string, unknown>) => ({ model: 'scripted', input: 'x', ...extra });
const schemaFormat = (schema: unknown, strict = true) =>
  create({ text: { format: { type: 'json_schema', name: 's', strict, schema } } });
const prop = (s: unknown) => ({
  type: 'object',
  properties: { a: s },
  required: ['a'],
  additionalProperties: false,
});
const image = (url: string) =>
  create({ input: [{ role: 'user', content: [{ type: 'input_image', image_url: url }] }] });

/** Refused, each with a 4xx. */
const refused: Hostile[] = [
  // 1. Malformed escapes in path ids.
  { name: 'bad escape in a response id', path: '/responses/%E0%A4%A' },
  { name: 'bad escape in a conversation item id', method: 'DELETE', path: '/conversations/conv_1/items/%' },
  { name: 'bad escape in a model id', path: '/models/%ZZ' },
  // 2. Paths that a quadratic router chokes on.
  { name: '100k slashes then a letter', path: `${big(100_000, '/')}x` },
  { name: 'slashes inside an id route', path: `/responses/${big(100_000, '/')}x` },
  { name: '100k segments', path: `/conversations/${big(100_000, 'a/')}` },
  { name: 'a 900 KB response id', path: `/responses/${big(900_000)}` },
  // 3. Nesting.
  {
    name: '10k-deep metadata',
    method: 'POST',
    path: '/responses',
    body: `{"model":"scripted","metadata":${deep(10_000)}}`,
  },
  {
    name: '10k-deep tool parameters',
    method: 'POST',
    path: '/responses',
    body: `{"model":"scripted","tools":[{"type":"function","name":"f","parameters":{"a":${deep(10_000)}}}]}`,
  },
  {
    name: '10k-deep chat messages',
    method: 'POST',
    path: '/chat/completions',
    body: `{"model":"scripted","messages":${deep(10_000)}}`,
  },
  {
    name: '10k-deep embeddings input',
    method: 'POST',
    path: '/embeddings',
    body: `{"model":"scripted","input":${deep(10_000)}}`,
  },
  {
    name: '10k-deep conversation items',
    method: 'POST',
    path: '/conversations',
    body: `{"items":${deep(10_000)}}`,
  },
  { name: '150k-deep unclosed braces', method: 'POST', path: '/responses', body: big(150_000, '{"a":') },
  {
    name: 'a forged deep compaction',
    method: 'POST',
    path: '/responses',
    body: create({ input: [{ type: 'compaction', encrypted_content: `intab.v1.${btoa(deep(50_000))}` }] }),
  },
  {
    name: 'a forged reasoning item',
    method: 'POST',
    path: '/responses',
    body: create({
      input: [
        {
          type: 'reasoning',
          summary: [],
          encrypted_content: `intab.rs.v1.${btoa('{"content":[1],"summary":[null]}')}`,
        },
      ],
    }),
  },
  // 4. Schemas.
  {
    name: 'an invalid pattern',
    method: 'POST',
    path: '/responses',
    body: schemaFormat(prop({ type: 'string', pattern: '(' })),
  },
  {
    name: 'a lookbehind pattern',
    method: 'POST',
    path: '/responses',
    body: schemaFormat(prop({ type: 'string', pattern: '(?<=a)b' })),
  },
  {
    name: 'a backreference pattern',
    method: 'POST',
    path: '/responses',
    body: schemaFormat(prop({ type: 'string', pattern: '(a*)*\\1$' })),
  },
  {
    name: 'an unsatisfiable schema',
    method: 'POST',
    path: '/responses',
    body: schemaFormat(prop({ type: 'string', minLength: 3, maxLength: 1 })),
  },
  { name: 'a false schema', method: 'POST', path: '/responses', body: schemaFormat(prop(false)) },
  {
    name: 'an unknown type',
    method: 'POST',
    path: '/responses',
    body: schemaFormat(prop({ type: 'strin' })),
  },
  {
    name: 'a $ref to nowhere',
    method: 'POST',
    path: '/responses',
    body: schemaFormat(prop({ $ref: '#/$defs/x' })),
  },
  {
    name: 'a $ref into the prototype',
    method: 'POST',
    path: '/responses',
    body: schemaFormat(prop({ $ref: '#/toString' })),
  },
  {
    name: 'a bad tool parameters schema',
    method: 'POST',
    path: '/responses',
    body: create({ tools: [{ type: 'function', name: 'f', parameters: { type: 'object', required: 'a' } }] }),
  },
  {
    name: 'a bad chat response_format',
    method: 'POST',
    path: '/chat/completions',
    body: {
      model: 'scripted',
      messages: [{ role: 'user', content: 'x' }],
      response_format: { type: 'json_schema', json_schema: { name: 's', schema: prop({ enum: [] }) } },
    },
  },
  // 5. Tool pairing and ids.
  {
    name: 'an orphan tool output',
    method: 'POST',
    path: '/responses',
    body: create({ input: [{ type: 'function_call_output', call_id: 'c', output: 'x' }] }),
  },
  {
    name: 'a call skipped by a new user message',
    method: 'POST',
    path: '/responses',
    body: create({
      input: [
        { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' },
        { role: 'user', content: 'x' },
      ],
    }),
  },
  {
    name: 'duplicate item ids',
    method: 'POST',
    path: '/responses',
    body: create({
      input: [
        { type: 'message', id: 'msg_1', role: 'user', content: 'a' },
        { type: 'message', id: 'msg_1', role: 'user', content: 'b' },
      ],
    }),
  },
  // 6. Image URLs.
  { name: 'a javascript: image', method: 'POST', path: '/responses', body: image('javascript:alert(1)') },
  { name: 'a file: image', method: 'POST', path: '/responses', body: image('file:///etc/passwd') },
  {
    name: 'a non-image data: URL',
    method: 'POST',
    path: '/responses',
    body: image('data:text/html,<script>1</script>'),
  },
  { name: 'an empty data: URL', method: 'POST', path: '/responses', body: image('data:image/png;base64,') },
  { name: 'a relative API image', method: 'POST', path: '/responses', body: image('/v1/responses') },
  { name: 'a same-origin API image', method: 'POST', path: '/responses', body: image(`${BASE}/models`) },
  {
    name: 'a 900 KB non-image data: URL',
    method: 'POST',
    path: '/responses',
    body: image(`data:text/plain;base64,${big(900_000, 'A')}`),
  },
  // 7. previous_response_id.
  {
    name: 'an unknown previous response',
    method: 'POST',
    path: '/responses',
    body: create({ previous_response_id: 'resp_nope' }),
  },
  {
    name: 'an unknown previous response on compact',
    method: 'POST',
    path: '/responses/compact',
    body: create({ previous_response_id: 'resp_nope' }),
  },
  // 8. Conversation items.
  {
    name: 'a bad conversation item',
    method: 'POST',
    path: '/conversations',
    body: { items: [{ role: 'robot', content: 'x' }] },
  },
  // 9. Echoes.
  { name: 'a 900 KB model', method: 'POST', path: '/responses', body: { model: big(900_000), input: 'x' } },
  {
    name: 'a 900 KB unknown parameter',
    method: 'POST',
    path: '/responses',
    body: { model: 'scripted', [big(900_000)]: 1 },
  },
  {
    name: 'a 900 KB enum value',
    method: 'POST',
    path: '/responses',
    body: create({ truncation: big(900_000) }),
  },
  {
    name: 'a 900 KB tool choice',
    method: 'POST',
    path: '/responses',
    body: create({ tool_choice: { type: 'function', name: big(900_000) } }),
  },
  { name: 'a 900 KB method', method: big(100_000, 'X'), path: '/responses' },
  // Other shapes from the corpus.
  { name: '900 KB of invalid JSON', method: 'POST', path: '/responses', body: big(900_000, '"') },
  { name: 'a body that is an array', method: 'POST', path: '/responses', body: '[1]' },
  {
    name: 'lone surrogates in a model',
    method: 'POST',
    path: '/responses',
    body: '{"model":"\\ud800\\udfff\\udc00"}',
  },
];

/** Hostile but valid: answered normally, and as fast. */
const accepted: Hostile[] = [
  {
    name: 'a catastrophic pattern the output matches',
    method: 'POST',
    path: '/responses',
    body: schemaFormat({
      type: 'object',
      properties: { aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: { type: 'string', pattern: '^(a+)+$' } },
      required: ['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'],
      additionalProperties: false,
    }),
  },
  {
    name: '__proto__ in metadata',
    method: 'POST',
    path: '/responses',
    body: '{"model":"scripted","input":"x","metadata":{"__proto__":"x"}}',
  },
  {
    name: '900 KB of brackets inside a string',
    method: 'POST',
    path: '/responses',
    body: create({ input: big(900_000, '[') }),
  },
  {
    name: 'a 900 KB image data: URL',
    method: 'POST',
    path: '/responses',
    body: image(`data:image/png;base64,${big(900_000, 'A')}`),
  },
  {
    name: 'JSON nested to the limit',
    method: 'POST',
    path: '/responses',
    body: `{"model":"scripted","input":"x","tools":[{"type":"function","name":"f","parameters":{"x-a":${deep(124)}}}]}`,
  },
];

async function send(rig: ReturnType<typeof makeRig>, h: Hostile): Promise<Response> {
  const body =
    h.body === undefined ? undefined : typeof h.body === 'string' ? h.body : JSON.stringify(h.body);
  if (body !== undefined) expect(new TextEncoder().encode(body).length, h.name).toBeLessThan(1_000_000);
  return rig.server.fetch(
    new Request(`${BASE}${h.path}`, {
      method: h.method ?? 'GET',
      headers: { 'content-type': 'application/json' },
      body,
    }),
  );
}

describe('hostile inputs: an OpenAI-shaped 4xx, nothing stored, the event loop free', () => {
  for (const refusal of refused) {
    it(refusal.name, async () => {
      const rig = await seedConversation(makeRig()); // a refusal adds no response, conversation or item
      const h = { ...refusal, body: inConversation(refusal.path, refusal.body, rig.conversation) };
      // Warm: once to warm the path (first compiles are not the input's cost), then the fastest of
      // three. Cold: a fresh schema and pattern for each measured request (helpers/fresh-input), so
      // that no cache of compiled patterns from the warm-up hides what a new schema costs.
      await send(rig, h);
      const warm = await fastestBlock(3, () => send(rig, h));
      let n = 0;
      const cold = await fastestBlock(3, () => send(rig, { ...h, body: freshen(h.body, `cold${n++}`) }));
      for (const { value: res, blockedMs } of [warm, cold]) {
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        expect(res.headers.get('content-type')).toMatch(/application\/json/);
        const body = await res.json();
        expect(validateErrorBody(body)).toEqual([]);
        expect(body.error.message.length).toBeLessThan(2100);
        expect(blockedMs).toBeLessThan(100);
      }
      expect(await storeContents(rig.store)).toEqual(rig.before);
      // The server is not stuck: a normal request after the hostile ones is answered.
      const next = await rig.call('POST', '/responses', { model: 'scripted', input: 'next', store: false });
      expect(next.status).toBe(200);
    });
  }
});

describe('hostile but valid inputs: answered, and as fast (warm and cold)', () => {
  for (const h of accepted) {
    it(h.name, async () => {
      const rig = makeRig();
      await send(rig, h);
      const warm = await fastestBlock(3, () => send(rig, h));
      let n = 0;
      const cold = await fastestBlock(3, () => send(rig, { ...h, body: freshen(h.body, `cold${n++}`) }));
      for (const { value: res, blockedMs } of [warm, cold]) {
        expect(res.status).toBe(200);
        await res.text();
        expect(blockedMs).toBeLessThan(100);
      }
    });
  }
});
