import { describe, expect, it } from 'vitest';
import { ApiError, IntabWebSocket } from '../../../src/core';
import { MemoryStore } from '../../../src/store/memory-store';
import type { StoredResponse } from '../../../src/store/types';
import { makeRig } from '../../helpers/server';
import { Conn, last, responseOf, runScenarios, textOf } from '../../helpers/ws-scenarios';

const URL_WS = 'ws://intab.test/v1/responses';

function rig() {
  const { server, call } = makeRig();
  const connect = () => new IntabWebSocket(URL_WS, undefined, { fetch: (r) => server.fetch(r) });
  const compact = async (body: unknown) => (await call('POST', '/responses/compact', body)).json();
  return { server, connect, compact };
}

describe('WebSocket mode over the core (IntabWebSocket)', () => {
  it('passes the compliance behaviours: turns, continuation, cache per connection, eviction, compaction, bad messages', async () => {
    const { connect, compact } = rig();
    const r = await runScenarios(connect, 'scripted', compact);

    // One create streams the usual events through a terminal one; the next is answered in turn.
    expect(r.first.map((e) => e.type).slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    expect(r.first.map((e) => e.type)).toContain('response.output_text.delta');
    expect(last(r.first).type).toBe('response.completed');
    expect(textOf(r.first)).toBe('You said: hello there');
    expect(textOf(r.second)).toBe('You said: second turn');
    expect(responseOf(r.second).id).not.toBe(responseOf(r.first).id);

    // Continuation of a store:false response: the model sees the first turn, not the second.
    expect(last(r.continued).type).toBe('response.completed');
    expect(responseOf(r.continued).previous_response_id).toBe(responseOf(r.first).id);
    expect(JSON.parse(textOf(r.continued))).toEqual([
      { role: 'user', content: 'hello there' },
      { role: 'assistant', content: 'You said: hello there' },
      { role: 'user', content: '!transcript' },
    ]);

    // Bad messages: one error event each, in OpenAI's shape, and the socket keeps working.
    for (const [events, code, param] of [
      [r.badJson, 'invalid_json', null],
      [r.badType, 'invalid_value', 'type'],
      [r.streamField, 'unsupported_parameter', 'stream'],
    ] as const) {
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        type: 'error',
        status: 400,
        error: { type: 'invalid_request_error', code, param },
      });
      expect(typeof (events[0] as unknown as { error: { message: unknown } }).error.message).toBe('string');
    }
    expect(textOf(r.afterBad)).toBe('You said: still here');

    // A missing previous response.
    expect(r.missing).toEqual([
      expect.objectContaining({
        type: 'error',
        status: 400,
        error: expect.objectContaining({
          code: 'previous_response_not_found',
          param: 'previous_response_id',
        }),
      }),
    ]);
    // A failed continuation evicts the entry it used.
    expect(last(r.failed).type).toBe('response.failed');
    expect(last(r.afterEvict)).toMatchObject({
      type: 'error',
      error: { code: 'previous_response_not_found' },
    });

    // A new connection has no cache; a clean create there works.
    expect(last(r.otherConn)).toMatchObject({
      type: 'error',
      error: { code: 'previous_response_not_found' },
    });
    expect(textOf(r.cleanAfter)).toBe('You said: fresh start');

    // The output of /v1/responses/compact starts a new chain, which continues.
    expect(r.compactOutput.some((i) => (i as { type: string }).type === 'compaction')).toBe(true);
    expect(last(r.fromCompact).type).toBe('response.completed');
    expect(last(r.fromCompactNext).type).toBe('response.completed');
  });

  it('continues a stored response, and a store:false one built on it keeps the stored history', async () => {
    const { connect } = rig();
    const c = await Conn.open(connect);
    const stored = await c.create({ model: 'scripted', input: 'one' });
    const unstored = await c.create({
      model: 'scripted',
      input: 'two',
      previous_response_id: responseOf(stored).id,
      store: false,
    });
    const next = await c.create({
      model: 'scripted',
      input: '!transcript',
      previous_response_id: responseOf(unstored).id,
      store: false,
    });
    expect(JSON.parse(textOf(next)).map((m: { content: string }) => m.content)).toEqual([
      'one',
      'You said: one',
      'two',
      'You said: two',
      '!transcript',
    ]);
    c.ws.close();
  });

  it('closing the socket aborts the running create, as an aborted fetch does', async () => {
    const { server, connect } = rig();
    const c = await Conn.open(connect);
    c.send({ type: 'response.create', model: 'scripted', input: '!delay 20 !words 500' });
    // Wait for the first token, then close mid-stream.
    while (!c.events.some((e) => e.type === 'response.output_text.delta'))
      await new Promise((r) => setTimeout(r, 5));
    const id = (c.events[0] as unknown as { response: { id: string } }).response.id;
    c.ws.close(1000);
    for (let i = 0; i < 400; i++) {
      const res = await server.fetch(new Request(`http://intab.test/v1/responses/${id}`));
      const { status } = (await res.json()) as { status: string };
      if (status !== 'in_progress') {
        expect(status).toBe('cancelled');
        break;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    const delivered = c.events.length;
    await new Promise((r) => setTimeout(r, 100));
    expect(c.events.length).toBe(delivered);
    expect(c.closed).toEqual({ code: 1000, reason: '' });
  });

  it('bounds the messages waiting on one connection', async () => {
    const { server } = rig();
    const ws = new IntabWebSocket(URL_WS, undefined, { fetch: (r) => server.fetch(r), maxQueued: 2 });
    const c = await Conn.open(() => ws);
    for (let i = 0; i < 4; i++) c.send({ type: 'response.create', model: 'scripted', input: `m${i}` });
    const turns = [await c.turn(), await c.turn(), await c.turn(), await c.turn()];
    const errors = turns.filter((t) => last(t).type === 'error');
    expect(errors).toHaveLength(1);
    expect(last(errors[0] ?? [])).toMatchObject({ error: { code: 'too_many_queued_messages' } });
    expect(turns.filter((t) => last(t).type === 'response.completed').map(textOf)).toEqual([
      'You said: m0',
      'You said: m1',
      'You said: m2',
    ]);
    ws.close();
  });

  it('behaves as a WebSocket: states, constants, send before open, close codes', async () => {
    const { server } = rig();
    const ws = new IntabWebSocket(URL_WS, undefined, { fetch: (r) => server.fetch(r) });
    expect([ws.readyState, IntabWebSocket.OPEN, ws.CLOSED, ws.binaryType]).toEqual([0, 1, 3, 'blob']);
    expect(() => ws.send('{}')).toThrow(/CONNECTING/);
    const opened = new Promise((r) => {
      ws.onopen = r;
    });
    await opened;
    expect(ws.readyState).toBe(ws.OPEN);
    expect(() => ws.close(1001)).toThrow();
    const closed = new Promise<CloseEvent>((r) => {
      ws.onclose = (e) => r(e as CloseEvent);
    });
    ws.close(4000, 'bye');
    expect(ws.readyState).toBe(ws.CLOSING);
    const e = await closed;
    expect([e.code, e.reason, e.wasClean, ws.readyState]).toEqual([4000, 'bye', true, 3]);
    expect(ws.url).toBe(URL_WS);
  });
  it("sends the core's in-band error (a final write that failed) in the socket's error envelope", async () => {
    class FullStore extends MemoryStore {
      override async putResponse(record: StoredResponse, opts?: { durable?: boolean }) {
        if (opts?.durable) throw new ApiError(507, 'server_error', 'storage_quota_exceeded', null, 'full');
        return super.putResponse(record, opts);
      }
    }
    const { server } = makeRig({ store: new FullStore() });
    const c = await Conn.open(() => new IntabWebSocket(URL_WS, undefined, { fetch: (r) => server.fetch(r) }));
    expect(last(await c.create({ model: 'scripted', input: 'hi' })).type).toBe('response.completed');
    expect(await c.turn()).toEqual([
      {
        type: 'error',
        status: 500,
        error: { type: 'server_error', code: 'storage_quota_exceeded', message: 'full', param: null },
      },
    ]);
    c.ws.close();
  });
});
