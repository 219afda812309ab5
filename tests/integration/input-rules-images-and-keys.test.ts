/**
 * Input rules of issue 15 (classes 6, 7, 8, 9), each answered as OpenAI answers: image URLs that are
 * not images on the web, an unknown `previous_response_id`, `__proto__` keys, and input echoed whole.
 * Every refusal is a 4xx with OpenAI's error body, and a refused request stores nothing.
 */
import { describe, expect, it } from 'vitest';
import { makeRig, seedConversation, storeContents } from '../helpers/server';
import { expectError, fakeEngine } from './create-helpers';

describe('class 6: input_image URLs are images on the web or data:image, never the API', () => {
  const image = (url: string) => ({
    model: 'scripted',
    input: [
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'look' },
          { type: 'input_image', image_url: url },
        ],
      },
    ],
  });
  const param = 'input[0].content[1].image_url';
  const bad: [string, string][] = [
    [
      'javascript:alert(1)',
      `Invalid '${param}'. Expected an http or https URL or a base64-encoded data URL with an image MIME type, but got a URL with the scheme 'javascript:'.`,
    ],
    [
      'file:///etc/passwd',
      `Invalid '${param}'. Expected an http or https URL or a base64-encoded data URL with an image MIME type, but got a URL with the scheme 'file:'.`,
    ],
    [
      'data:text/html;base64,PGI+',
      `Invalid '${param}'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got unsupported MIME type 'text/html'.`,
    ],
    [
      'data:image/png;base64,',
      `Invalid '${param}'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got an empty value.`,
    ],
    ['/v1/models', `Invalid '${param}'. Expected a valid URL, but got a value with an invalid format.`],
    [
      'blob:https://elsewhere.example/0f2c1b1e',
      `Invalid '${param}'. Expected an http or https URL or a base64-encoded data URL with an image MIME type, but got a URL with the scheme 'blob:'.`,
    ],
    ['', `Invalid '${param}'. Expected a valid URL, but got a value with an invalid format.`],
    [
      'http://intab.test/v1/responses/resp_1',
      `Invalid '${param}'. The URL points at this API (/v1/responses/resp_1): an image must come from elsewhere.`,
    ],
    [
      'http://intab.test/responses',
      `Invalid '${param}'. The URL points at this API (/responses): an image must come from elsewhere.`,
    ],
  ];
  for (const [url, message] of bad) {
    it(`refuses ${JSON.stringify(url)}`, async () => {
      const { call, store, ...seed } = await seedConversation(makeRig());
      const res = await call('POST', '/responses', image(url));
      expect(await expectError(res, 400, param, 'invalid_value')).toBe(message);
      expect(await storeContents(store)).toEqual(seed.before);
    });
  }

  it('accepts https, http, same-origin non-API, data:image and same-origin blob: URLs', async () => {
    const { call } = makeRig();
    for (const url of [
      'https://example.com/cat.png',
      'http://example.com/v1/cat.png',
      'http://intab.test/img/cat.png',
      'data:image/png;base64,iVBORw0KGgo=',
      'blob:http://intab.test/0f2c1b1e-7d1a-4c55-9d44-0a4e1f6c2b11',
    ]) {
      expect((await call('POST', '/responses', image(url))).status, url).toBe(200);
    }
  });

  it('checks images in function_call_output, conversation items and chat messages too', async () => {
    const { call } = makeRig();
    const out = await call('POST', '/responses', {
      model: 'scripted',
      input: [
        { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
        {
          type: 'function_call_output',
          call_id: 'c1',
          output: [{ type: 'input_image', image_url: 'file:///x.png' }],
        },
      ],
    });
    await expectError(out, 400, 'input[1].output[0].image_url', 'invalid_value');
    const conv = await call('POST', '/conversations', {
      items: [{ role: 'user', content: [{ type: 'input_image', image_url: 'javascript:1' }] }],
    });
    await expectError(conv, 400, 'items[0].content[0].image_url', 'invalid_value');
    const chat = await call('POST', '/chat/completions', {
      model: 'scripted',
      messages: [
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'http://intab.test/v1/models' } }] },
      ],
    });
    await expectError(chat, 400, 'messages[0].content[0].image_url.url', 'invalid_value');
  });
});

describe('class 7: an unknown previous_response_id is a 400', () => {
  const message = "Previous response with id 'resp_abc' not found.";
  for (const path of ['/responses', '/responses/compact', '/responses/input_tokens']) {
    it(`on ${path}`, async () => {
      const { call } = makeRig();
      const res = await call('POST', path, {
        model: 'scripted',
        input: 'x',
        previous_response_id: 'resp_abc',
      });
      expect(await expectError(res, 400, 'previous_response_id', 'previous_response_not_found')).toBe(
        message,
      );
    });
  }
});

describe('class 8: __proto__ and other inherited names are plain keys', () => {
  const meta = JSON.parse('{"__proto__":"kept","toString":"too"}');

  it('keeps __proto__ in metadata, as returned and as stored', async () => {
    const { call, client } = makeRig();
    const res = await call(
      'POST',
      '/responses',
      `{"model":"scripted","input":"x","metadata":{"__proto__":"kept","toString":"too"}}`,
    );
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('"metadata":{"__proto__":"kept","toString":"too"}');
    const stored = await client.responses.retrieve(JSON.parse(text).id);
    expect(Object.entries(stored.metadata ?? {})).toEqual(Object.entries(meta));
    const conv = await call('POST', '/conversations', `{"metadata":{"__proto__":"kept"}}`);
    expect(await conv.text()).toContain('"metadata":{"__proto__":"kept"}');
  });

  it('keeps __proto__ in schemas, and a strict schema that requires it is not met by {}', async () => {
    const schema = `{"type":"object","properties":{"__proto__":{"type":"string"},"toString":{"type":"string"}},"required":["__proto__","toString"],"additionalProperties":false}`;
    const body = `{"model":"scripted","input":"x","text":{"format":{"type":"json_schema","name":"s","strict":true,"schema":${schema}}}}`;
    const { call } = makeRig();
    const ok = await call('POST', '/responses', body);
    expect(ok.status).toBe(200);
    const text = await ok.text();
    expect(text).toContain(`"schema":${schema}`);
    const output = JSON.parse(JSON.parse(text).output[0].content[0].text);
    expect(Object.keys(output)).toEqual(['__proto__', 'toString']);
    // A model that answers {} has broken the strict schema: a server_error, never a pass.
    const empty = makeRig({ engine: fakeEngine([{ type: 'text', delta: '{}' }]) });
    const res = await empty.call('POST', '/responses', body);
    expect(res.status).toBe(500);
    expect((await res.json()).error.message).toMatch(/missing required property '__proto__'/);
  });

  it('names conversation items as items[i], not input[i]', async () => {
    const { call } = makeRig();
    const create = await call('POST', '/conversations', { items: [{ role: 'robot', content: 'x' }] });
    await expectError(create, 400, 'items[0].role', 'invalid_value');
    const conv = await (await call('POST', '/conversations', {})).json();
    const add = await call('POST', `/conversations/${conv.id}/items`, {
      items: [
        { role: 'user', content: 'ok' },
        { type: 'message', role: 'user', content: [{ type: 'nope' }] },
      ],
    });
    await expectError(add, 400, 'items[1].content[0].type', 'invalid_value');
  });
});

describe('class 9: input is never echoed whole', () => {
  const huge = 'x'.repeat(1_000_000);
  const cases: [string, string, unknown][] = [
    ['a 1 MB model', '/responses', { model: huge, input: 'x' }],
    ['a 1 MB unknown parameter', '/responses', { model: 'scripted', [huge]: 1 }],
    ['a 1 MB enum value', '/responses', { model: 'scripted', truncation: huge }],
    [
      'a 1 MB previous_response_id',
      '/responses',
      { model: 'scripted', previous_response_id: `resp_${'a'.repeat(999_000)}` },
    ],
    ['a 1 MB tool type', '/responses', { model: 'scripted', tools: [{ type: huge }] }],
    ['a 1 MB chat model', '/chat/completions', { model: huge, messages: [{ role: 'user', content: 'x' }] }],
    [
      'a 1 MB item reference',
      '/responses',
      { model: 'scripted', input: [{ type: 'item_reference', id: huge }] },
    ],
  ];
  for (const [name, path, body] of cases) {
    it(`${name}: a short message and param`, async () => {
      const { call } = makeRig();
      const res = await call('POST', path, body);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      const { error } = await res.json();
      expect(error.message.length).toBeLessThan(1000);
      expect((error.param ?? '').length).toBeLessThan(400);
      expect(error.message).toMatch(/… \(\d+ characters\)/);
    });
  }

  it('keeps the end of the message when it clips a model name', async () => {
    const { call } = makeRig();
    const res = await call('POST', '/responses', { model: huge, input: 'x' });
    expect(await expectError(res, 400, 'model', 'model_not_found')).toBe(
      `The requested model '${'x'.repeat(200)}… (1000000 characters)' does not exist.`,
    );
  });
});
