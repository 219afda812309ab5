/**
 * `intab/msw` serves WebSocket mode too, where msw intercepts WebSockets (a global `WebSocket`).
 * Node 20 has none, so this test gives it a placeholder class that must never be constructed: every
 * `/v1/responses` socket is msw's, answered by intab's session over the same server as HTTP.
 */
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intabHandlers } from '../../src/entries/msw';
import { Conn, last, responseOf, textOf } from '../helpers/ws-scenarios';

const g = globalThis as { WebSocket?: unknown };
const hadWebSocket = 'WebSocket' in g;
if (!hadWebSocket)
  g.WebSocket = class NoNetworkWebSocket {
    constructor() {
      throw new Error('the placeholder WebSocket was constructed: msw did not intercept');
    }
  };
const server = setupServer(...intabHandlers({ baseUrl: 'http://intab.test' }));

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => {
  server.close();
  if (!hadWebSocket) delete g.WebSocket;
});

describe('intab/msw WebSocket mode', () => {
  it('answers creates on a socket, continues store:false on it, and shares the store with HTTP', async () => {
    const Ws = globalThis.WebSocket as unknown as new (url: string) => WebSocket;
    const c = await Conn.open(() => new Ws('ws://intab.test/v1/responses'));
    const first = await c.create({ model: 'scripted', input: 'hi', store: false });
    expect(textOf(first)).toBe('You said: hi');
    const next = await c.create({
      model: 'scripted',
      input: '!transcript',
      previous_response_id: responseOf(first).id,
      store: false,
    });
    expect(JSON.parse(textOf(next))).toHaveLength(3);
    const stored = await c.create({ model: 'scripted', input: 'kept' });
    const res = await fetch(`http://intab.test/v1/responses/${responseOf(stored).id}`);
    expect(((await res.json()) as { status: string }).status).toBe('completed');
    c.send('{');
    expect(last(await c.turn())).toMatchObject({ type: 'error', error: { code: 'invalid_json' } });
    c.ws.close();
  });
});
