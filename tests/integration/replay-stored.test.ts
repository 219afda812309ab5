/**
 * Issue 15, class 15: `GET /v1/responses/{id}?stream=true` replays any stored response. One that
 * kept no event log (a direct stream, a JSON answer) is replayed from events rebuilt out of the stored
 * response, in the order a live stream sends them, with its ids, ending with its stored state; the
 * `openai` SDK's stream helper reads it. In Node against the core.
 */
import type { Response as ApiResponse } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { makeRig, readSse } from '../helpers/server';
import { validateStreamEvent } from '../helpers/spec';

type Frame = { event: string; data: Record<string, unknown> };

/** Event types with each run of equal deltas folded into one: a replay sends a part as one delta. */
function shape(frames: Frame[]): string[] {
  return frames.map((f) => f.event).filter((t, i, all) => !(t.endsWith('.delta') && all[i - 1] === t));
}

/** Every event is valid, numbered from 0 without gaps, and its `event:` line matches its type. */
function expectWellFormed(frames: Frame[]): void {
  expect(frames.map((f) => f.data.sequence_number)).toEqual(frames.map((_, i) => i));
  for (const f of frames) {
    expect(f.event).toBe(f.data.type);
    expect(validateStreamEvent(f.data)).toEqual([]);
  }
}

const final = (frames: Frame[]) => frames.at(-1)?.data.response as ApiResponse;

const tools = {
  model: 'scripted',
  input: '!all-tools',
  reasoning: { effort: 'low', summary: 'auto' },
  include: ['reasoning.encrypted_content'],
  tools: [
    { type: 'function', name: 'a', parameters: { type: 'object', properties: { x: { type: 'string' } } } },
    { type: 'function', name: 'b', parameters: { type: 'object', properties: {} } },
  ],
};

describe('replaying a stored response that has no event log', () => {
  for (const [name, body] of [
    ['plain text', { model: 'scripted', input: 'hello there world' }],
    ['reasoning, a summary, encrypted content and tool calls', tools],
    [
      'reasoning and text with logprobs',
      {
        model: 'scripted',
        input: 'think then say',
        reasoning: { effort: 'high' },
        include: ['message.output_text.logprobs'],
        top_logprobs: 2,
      },
    ],
    ['a refusal', { model: 'scripted', input: '!refuse' }],
  ] as const) {
    it(`rebuilds a direct stream with ${name}: the live order, its ids, its end`, async () => {
      const { call } = makeRig();
      const live = await readSse(await call('POST', '/responses', { ...body, stream: true }));
      const id = final(live).id;
      const replay = await readSse(await call('GET', `/responses/${id}?stream=true`));
      expectWellFormed(replay);
      expect(shape(replay)).toEqual(shape(live));
      expect(final(replay)).toEqual(final(live));
      expect(final(replay)).toEqual(await (await call('GET', `/responses/${id}`)).json());
      // Item ids and the first snapshot are the live ones too.
      const added = (frames: Frame[]) =>
        frames.filter((f) => f.event === 'response.output_item.added').map((f) => f.data.item);
      expect(added(replay)).toEqual(added(live));
      expect(replay[0]?.data).toEqual(live[0]?.data);
    });
  }

  it('replays a JSON answer, and the SDK stream helper reads it to the same response', async () => {
    const { client, call } = makeRig();
    const created = await client.responses.create({ model: 'scripted', input: 'from json' });
    const frames = await readSse(await call('GET', `/responses/${created.id}?stream=true`));
    expectWellFormed(frames);
    expect(frames.map((f) => f.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const replayed = await client.responses.stream({ response_id: created.id }).finalResponse();
    expect(replayed.output_text).toBe('You said: from json');
    expect(replayed.id).toBe(created.id);
  });

  it('honours starting_after on a rebuilt stream', async () => {
    const { client, call } = makeRig();
    const created = await client.responses.create({ model: 'scripted', input: 'a b c' });
    const all = await readSse(await call('GET', `/responses/${created.id}?stream=true`));
    const tail = await readSse(await call('GET', `/responses/${created.id}?stream=true&starting_after=3`));
    expect(tail).toEqual(all.slice(4));
  });

  for (const [status, body, end] of [
    ['failed', { model: 'scripted', input: '!fail' }, 'response.failed'],
    ['incomplete', { model: 'scripted', input: '!words 20', max_output_tokens: 16 }, 'response.incomplete'],
  ] as const) {
    it(`ends the replay of a ${status} response with ${end} and the stored response`, async () => {
      const { call } = makeRig();
      const live = await readSse(await call('POST', '/responses', { ...body, stream: true }));
      const id = final(live).id;
      expect(final(live).status).toBe(status);
      const replay = await readSse(await call('GET', `/responses/${id}?stream=true`));
      expectWellFormed(replay);
      expect(replay.at(-1)?.event).toBe(end);
      expect(final(replay)).toEqual(await (await call('GET', `/responses/${id}`)).json());
    });
  }

  it('ends the replay of a cancelled stream with the cancelled response', async () => {
    const { call } = makeRig();
    const res = await call('POST', '/responses', {
      model: 'scripted',
      input: '!delay 5 !words 300',
      stream: true,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes('output_text.delta')) text += new TextDecoder().decode((await reader.read()).value);
    const id = /"id":"(resp_[0-9a-f]+)"/.exec(text)?.[1] as string;
    await reader.cancel();
    // The replay waits for the run to settle, then tells its end.
    const replay = await readSse(await call('GET', `/responses/${id}?stream=true`));
    expectWellFormed(replay);
    expect(replay.at(-1)?.event).toBe('response.incomplete');
    expect(final(replay).status).toBe('cancelled');
    expect(final(replay)).toEqual(await (await call('GET', `/responses/${id}`)).json());
  });

  it('waits for a running JSON request and replays its end', async () => {
    const { call, store } = makeRig();
    const pending = call('POST', '/responses', { model: 'scripted', input: '!delay 10 !words 20' });
    let id = '';
    while (!id) {
      id = (await store.listUnfinished())[0]?.response.id ?? '';
      await new Promise((r) => setTimeout(r, 5));
    }
    const replay = await readSse(await call('GET', `/responses/${id}?stream=true`));
    const answered = await (await pending).json();
    expectWellFormed(replay);
    expect(final(replay)).toEqual(answered);
  });

  it('still answers 404 for a response that was not stored', async () => {
    const { call } = makeRig();
    const live = await readSse(
      await call('POST', '/responses', { model: 'scripted', input: 'x', stream: true, store: false }),
    );
    expect((await call('GET', `/responses/${final(live).id}?stream=true`)).status).toBe(404);
  });
});
