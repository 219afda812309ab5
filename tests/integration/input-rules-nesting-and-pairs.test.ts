/**
 * Input rules of issue 15 (classes 3 and 5), each answered as OpenAI answers: JSON nested past the
 * limit, tool calls and outputs that do not pair, duplicate item ids. Every refusal is a 4xx with
 * OpenAI's error body, and a refused request stores nothing.
 */
import { describe, expect, it } from 'vitest';
import { seal } from '../../src/core/responses/request/sealed';
import { inConversation, makeRig, seedConversation, storeContents } from '../helpers/server';
import { expectError } from './create-helpers';

/** `[[[…[0]…]]]`, `depth` arrays deep, as JSON text (JSON.stringify would recurse that deep). */
function deepArrays(depth: number): string {
  return `${'['.repeat(depth)}0${']'.repeat(depth)}`;
}

/** A create body as text whose `tools[0].parameters` holds a value `depth` levels deep in all. */
function bodyOfDepth(depth: number): string {
  // body(1) → tools(2) → tool(3) → parameters(4) → x-note: arrays from level 5 on.
  return `{"model":"scripted","input":"hi","tools":[{"type":"function","name":"f","parameters":{"type":"object","x-note":${deepArrays(depth - 4)}}}]}`;
}

const NESTED =
  'The JSON body of your request is nested too deeply: at most 128 levels of objects and arrays are allowed.';

describe('class 3: JSON nesting is bounded at the boundary', () => {
  it('accepts a body nested exactly to the limit', async () => {
    const { call } = makeRig();
    const res = await call('POST', '/responses', bodyOfDepth(128));
    expect(res.status).toBe(200);
  });

  const routes: [string, (deep: string) => string][] = [
    ['/responses', (d) => `{"model":"scripted","input":"x","metadata":${d}}`],
    ['/responses', (d) => `{"model":"scripted","input":"x","reasoning":{"effort":${d}}}`],
    [
      '/responses',
      (d) =>
        `{"model":"scripted","input":"x","tools":[{"type":"function","name":"f","parameters":{"x":${d}}}]}`,
    ],
    [
      '/responses',
      (d) =>
        `{"model":"scripted","input":"x","text":{"format":{"type":"json_schema","name":"s","schema":{"a":${d}}}}}`,
    ],
    ['/responses/input_tokens', (d) => `{"model":"scripted","input":${d}}`],
    ['/responses/compact', (d) => `{"model":"scripted","input":${d}}`],
    ['/chat/completions', (d) => `{"model":"scripted","messages":${d}}`],
    ['/embeddings', (d) => `{"model":"scripted","input":${d}}`],
    ['/conversations', (d) => `{"items":${d}}`],
  ];
  for (const [path, body] of routes) {
    it(`refuses 10,000 levels on ${path}: ${body('…')}, storing nothing`, async () => {
      const { call, store, ...seed } = await seedConversation(makeRig()); // and adds no item to it
      const res = await call('POST', path, inConversation(path, body(deepArrays(10_000)), seed.conversation));
      expect(await expectError(res, 400, null)).toBe(NESTED);
      expect(await storeContents(store)).toEqual(seed.before);
    });
  }

  it('refuses one level past the limit, and counts brackets inside strings as text', async () => {
    const { call } = makeRig();
    expect(await expectError(await call('POST', '/responses', bodyOfDepth(129)), 400, null)).toBe(NESTED);
    const text = await call('POST', '/responses', { model: 'scripted', input: `${'['.repeat(5000)}"\\` });
    expect(text.status).toBe(200);
  });

  it('bounds the JSON inside a compaction item too', async () => {
    const { call } = makeRig();
    const forged = seal('intab.v1.', JSON.parse(deepArrays(100)));
    const deep = `intab.v1.${btoa(deepArrays(10_000))}`;
    for (const encrypted_content of [forged, deep]) {
      const res = await call('POST', '/responses', {
        model: 'scripted',
        input: [{ type: 'compaction', encrypted_content }],
      });
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.error).toMatchObject({
        param: 'input[0].encrypted_content',
        code: 'invalid_encrypted_content',
      });
    }
  });
});

describe('class 5: tool calls and outputs pair, and item ids are unique', () => {
  it('refuses an output whose call is nowhere, instead of showing the model a tool named unknown', async () => {
    const { call, store, ...seed } = await seedConversation(makeRig());
    const res = await call('POST', '/responses', {
      model: 'scripted',
      input: [
        { role: 'user', content: 'hi' },
        { type: 'function_call_output', call_id: 'call_orphan', output: '42' },
      ],
    });
    expect(await expectError(res, 400, 'input')).toBe(
      'No tool call found for function call output with call_id call_orphan.',
    );
    expect(await storeContents(store)).toEqual(seed.before);
  });

  it('refuses a call left without its output before a new message', async () => {
    const { call } = makeRig();
    const res = await call('POST', '/responses', {
      model: 'scripted',
      input: [
        { role: 'user', content: 'weather?' },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{}' },
        { role: 'user', content: 'never mind' },
      ],
    });
    expect(await expectError(res, 400, 'input')).toBe('No tool output found for function call call_1.');
  });

  it('refuses the same through previous_response_id, and accepts the output that answers it', async () => {
    const { client, call } = makeRig();
    const tools = [{ type: 'function' as const, name: 'f', parameters: {}, strict: false }];
    const first = await client.responses.create({ model: 'scripted', input: 'call f', tools });
    const fc = first.output.find((o) => o.type === 'function_call');
    expect(fc?.type).toBe('function_call');
    const callId = fc?.type === 'function_call' ? fc.call_id : '';
    const skipped = await call('POST', '/responses', {
      model: 'scripted',
      previous_response_id: first.id,
      input: 'something else',
      tools,
    });
    expect(await expectError(skipped, 400, 'input')).toBe(
      `No tool output found for function call ${callId}.`,
    );
    const answered = await call('POST', '/responses', {
      model: 'scripted',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: callId, output: 'done' }],
      tools,
    });
    expect(answered.status).toBe(200);
  });

  it('refuses duplicate item ids in input', async () => {
    const { call } = makeRig();
    const res = await call('POST', '/responses', {
      model: 'scripted',
      input: [
        { type: 'message', id: 'msg_1', role: 'user', content: 'a' },
        { type: 'message', id: 'msg_1', role: 'user', content: 'b' },
      ],
    });
    expect(await expectError(res, 400, 'input')).toBe(
      'Duplicate item found with id msg_1. Remove duplicate items from your input and try again.',
    );
  });

  it('applies the same rules on /responses/compact and /responses/input_tokens', async () => {
    const { call } = makeRig();
    const input = [{ type: 'function_call_output', call_id: 'call_x', output: '1' }];
    for (const path of ['/responses/compact', '/responses/input_tokens']) {
      const res = await call('POST', path, { model: 'scripted', input });
      expect(await expectError(res, 400, 'input')).toMatch(/call_id call_x/);
    }
  });
});
