/**
 * The `openai` SDK's WebSocket client (`ResponsesWSBase`, the base of its `ResponsesWS`) against
 * intab's core, through the documented `_createSocket` that answers an {@link IntabSocketLike}.
 */
import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { ResponsesWSBase } from 'openai/resources/responses/ws-base';
import { describe, expect, it } from 'vitest';
import { IntabSocketLike, type ResponsesServer } from '../../src/core';
import { BASE, makeRig } from '../helpers/server';

/** README's recipe, with the server's fetch in place of the page's. */
function sdkSocketClass(server: ResponsesServer) {
  return class IntabResponsesWS extends ResponsesWSBase<IntabSocketLike> {
    constructor(client: OpenAI) {
      super(client);
      this._connectInitial();
    }
    protected _createSocket(url: URL, headers: Record<string, string>): IntabSocketLike {
      return new IntabSocketLike(url, { headers, fetch: (r) => server.fetch(r) });
    }
  };
}

/** The text of a response's messages (`output_text` is the SDK's own addition over HTTP, not on the wire). */
function outputText(response: OpenAI.Responses.Response): string {
  return response.output
    .flatMap((i) => (i.type === 'message' ? i.content : []))
    .map((c) => (c.type === 'output_text' ? c.text : ''))
    .join('');
}

/** Events of one create, through its terminal one or an error (the SDK reports `error` events as errors). */
function nextTurn(ws: ResponsesWSBase<IntabSocketLike>): Promise<ResponseStreamEvent[] | Error> {
  return new Promise((resolve) => {
    const events: ResponseStreamEvent[] = [];
    const onEvent = (e: ResponseStreamEvent) => {
      events.push(e);
      if (['response.completed', 'response.failed', 'response.incomplete'].includes(e.type)) {
        done();
        resolve(events);
      }
    };
    const onError = (err: Error) => {
      done();
      resolve(err);
    };
    const done = () => {
      ws.off('event', onEvent as never);
      ws.off('error', onError);
    };
    ws.on('event', onEvent as never);
    ws.on('error', onError);
  });
}

describe('the openai SDK over intab WebSocket mode', () => {
  it('streams turns, continues a store:false response, and reports an error event as an error', async () => {
    const { server } = makeRig();
    const client = new OpenAI({ apiKey: 'intab-test', baseURL: BASE, maxRetries: 0 });
    const ws = new (sdkSocketClass(server))(client);
    expect(ws.url.href).toBe('ws://intab.test/v1/responses');

    let turn = nextTurn(ws);
    ws.send({ type: 'response.create', model: 'scripted', input: 'hi', store: false });
    const first = (await turn) as ResponseStreamEvent[];
    const done = first.at(-1) as Extract<ResponseStreamEvent, { type: 'response.completed' }>;
    expect(done.type).toBe('response.completed');
    expect(outputText(done.response)).toBe('You said: hi');
    expect(first.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta)).toEqual([
      'You',
      ' said:',
      ' hi',
    ]);

    turn = nextTurn(ws);
    ws.send({
      type: 'response.create',
      model: 'scripted',
      input: '!transcript',
      previous_response_id: done.response.id,
      store: false,
    });
    const second = (await turn) as ResponseStreamEvent[];
    const end = second.at(-1) as Extract<ResponseStreamEvent, { type: 'response.completed' }>;
    expect(JSON.parse(outputText(end.response))).toHaveLength(3);
    expect(end.response.previous_response_id).toBe(done.response.id);

    turn = nextTurn(ws);
    ws.send({
      type: 'response.create',
      model: 'scripted',
      input: 'x',
      previous_response_id: 'resp_missing0',
    });
    const err = (await turn) as Error & { error?: { error?: { code?: string } } };
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toMatch(/not found/);
    expect(err.error?.error?.code).toBe('previous_response_not_found');

    // Still usable after the error.
    turn = nextTurn(ws);
    ws.send({ type: 'response.create', model: 'scripted', input: 'again' });
    expect(((await turn) as ResponseStreamEvent[]).at(-1)?.type).toBe('response.completed');
    ws.close({ code: 1000, reason: 'done' });
  });
});
