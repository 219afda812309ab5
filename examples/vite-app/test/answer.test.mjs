// The app's own tests, in Node: intab/msw answers /v1 with the `scripted` model, no browser needed.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { intabHandlers } from 'intab/msw';
import { setupServer } from 'msw/node';
import OpenAI from 'openai';

const server = setupServer(...intabHandlers({ baseUrl: 'http://localhost:5173' }));
before(() => server.listen({ onUnhandledRequest: 'error' }));
after(() => server.close());

const client = new OpenAI({ baseURL: 'http://localhost:5173/v1', apiKey: 'test' });

test('answers as the tab would', async () => {
  const response = await client.responses.create({ model: 'scripted', input: 'hello from a test' });
  assert.equal(response.output_text, 'You said: hello from a test');
});

test('streams, and errors like OpenAI', async () => {
  let text = '';
  const stream = client.responses.stream({ model: 'scripted', input: 'streamed' });
  stream.on('response.output_text.delta', (e) => {
    text += e.delta;
  });
  await stream.finalResponse();
  assert.equal(text, 'You said: streamed');
  await assert.rejects(client.responses.create({ model: 'nope', input: 'x' }), (err) => err.status === 400);
});
