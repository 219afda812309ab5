/**
 * The tool loop's life cycle with `file_search`: cancel and abort between passes (during the search)
 * and inside one (while the answer streams), and a stored response with a `file_search_call` read
 * back through GET, `input_items`, `previous_response_id`, a conversation, as input, and a replay.
 * (The vendored Open Responses spec describes function tools only, so these events are not checked
 * against it.)
 */
import type { Response as ApiResponse } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { ScriptedEngine } from '../../src/engine/scripted/scripted-engine';
import type { GenerateRequest } from '../../src/engine/types';
import { MemoryFileSearch } from '../helpers/file-search-double';
import { makeRig, readSse } from '../helpers/server';

const FILES = {
  vs_docs: [
    { file_id: 'file-sky', filename: 'sky.txt', text: 'The sky is blue on a clear day.' },
    { file_id: 'file-sea', filename: 'sea.txt', text: 'The sea is blue and deep.' },
  ],
};
const TOOL = { type: 'file_search' as const, vector_store_ids: ['vs_docs'] };

class CountingEngine extends ScriptedEngine {
  passes = 0;
  override generate(req: GenerateRequest, signal: AbortSignal) {
    this.passes += 1;
    return super.generate(req, signal);
  }
}

function rig() {
  const engine = new CountingEngine();
  const backend = new MemoryFileSearch(FILES);
  return { engine, backend, ...makeRig({ fileSearch: backend, engine }) };
}

/** Polls `check` every 5 ms, for at most 5 s (a hang fails here, not at the test's timeout). */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  const end = Date.now() + 5000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met within 5 s');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('cancelling the tool loop', () => {
  it('a background cancel during the search aborts it and runs no further pass', async () => {
    const { client, backend, engine } = rig();
    backend.gate = new Promise(() => {});
    const r = await client.responses.create({
      model: 'scripted',
      input: '!file_search blue',
      tools: [TOOL],
      background: true,
    });
    await until(() => backend.queries.length === 1);
    const cancelled = await client.responses.cancel(r.id);
    expect(cancelled.status).toBe('cancelled');
    expect(backend.queries[0]?.signal?.aborted).toBe(true);
    expect(cancelled.output).toEqual([
      expect.objectContaining({ type: 'file_search_call', status: 'incomplete', results: null }),
    ]);
    expect(engine.passes).toBe(1);
  });

  it('a background cancel while the second pass streams stops it within a token', async () => {
    const { client, engine } = rig();
    const r = await client.responses.create({
      model: 'scripted',
      input: '!delay 20 !file_search blue',
      tools: [TOOL],
      background: true,
    });
    await until(async () => (await client.responses.retrieve(r.id)).output.length === 2);
    const cancelled = await client.responses.cancel(r.id);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.output.map((o) => [o.type, (o as { status?: string }).status])).toEqual([
      ['file_search_call', 'completed'],
      ['message', 'incomplete'],
    ]);
    expect(engine.passes).toBe(2);
  });

  it('a stream the reader aborts inside the second pass is stored cancelled', async () => {
    const { client, engine } = rig();
    const stream = await client.responses.create({
      model: 'scripted',
      input: '!delay 20 !file_search blue',
      tools: [TOOL],
      stream: true,
    });
    let id = '';
    for await (const e of stream) {
      if (e.type === 'response.created') id = e.response.id;
      if (e.type === 'response.output_text.delta') break;
    }
    await until(async () => (await client.responses.retrieve(id)).status !== 'in_progress');
    const stored = await client.responses.retrieve(id);
    expect(stored.status).toBe('cancelled');
    expect(stored.output.map((o) => o.type)).toEqual(['file_search_call', 'message']);
    const words = stored.output[1]?.type === 'message' ? stored.output[1].content : [];
    expect(JSON.stringify(words).length).toBeLessThan(400);
    expect(engine.passes).toBe(2);
  });
});

describe('a stored file_search_call', () => {
  const create = { model: 'scripted', input: '!file_search blue sky', tools: [TOOL] };

  it('comes back the same from GET, and its replay streams the live events', async () => {
    const { call } = rig();
    const live = await readSse(
      await call('POST', '/responses', { ...create, include: ['file_search_call.results'], stream: true }),
    );
    const done = live.at(-1)?.data.response as ApiResponse;
    expect(await (await call('GET', `/responses/${done.id}`)).json()).toEqual(done);
    const replay = await readSse(await call('GET', `/responses/${done.id}?stream=true`));
    const fold = (fs: typeof live) =>
      fs.map((f) => f.event).filter((t, i, all) => !(t.endsWith('.delta') && all[i - 1] === t));
    expect(fold(replay)).toEqual(fold(live));
    // Sequence numbers run from 0 without gaps, as live.
    expect(replay.map((f) => f.data.sequence_number)).toEqual(replay.map((_, i) => i));
    expect(replay.at(-1)?.data.response).toEqual(done);
    const annotations = (fs: typeof live) =>
      fs.filter((f) => f.event === 'response.output_text.annotation.added').map((f) => f.data.annotation);
    expect(annotations(replay)).toEqual(annotations(live));
    const items = (fs: typeof live) =>
      fs.filter((f) => f.event.startsWith('response.output_item.')).map((f) => f.data.item);
    expect(items(replay)).toEqual(items(live));
  });

  it('replays a background run from its event log, and resumes after any event', async () => {
    const { call, client } = rig();
    const live = await readSse(
      await call('POST', '/responses', { ...create, background: true, stream: true }),
    );
    const id = String((live[0]?.data.response as ApiResponse | undefined)?.id);
    const replay = await readSse(await call('GET', `/responses/${id}?stream=true`));
    expect(replay.map((f) => f.data)).toEqual(live.map((f) => f.data));
    const searching = live.findIndex((f) => f.event === 'response.file_search_call.searching');
    const tail = await readSse(await call('GET', `/responses/${id}?stream=true&starting_after=${searching}`));
    expect(tail.map((f) => f.event)).toEqual(live.slice(searching + 1).map((f) => f.event));
    expect((await client.responses.retrieve(id)).status).toBe('completed');
  });

  it('is history for previous_response_id: the call and its results, then the answer', async () => {
    const { client } = rig();
    const first = await client.responses.create({ ...create, include: ['file_search_call.results'] });
    const next = await client.responses.create({
      model: 'scripted',
      previous_response_id: first.id,
      input: '!transcript',
    });
    const transcript = JSON.parse(next.output_text) as { role: string; content: string }[];
    expect(transcript.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    expect(transcript[2]?.content).toContain('The sky is blue on a clear day.');
    expect(transcript[2]?.content).toContain('not instructions');
    const items = await client.responses.inputItems.list(next.id, { order: 'asc' });
    expect(items.data.map((i) => i.type)).toEqual(['message', 'file_search_call', 'message', 'message']);
    expect(items.data[1]).toEqual(first.output[0]);
  });

  it('without its results kept, history says what was searched for', async () => {
    const { client } = rig();
    const first = await client.responses.create(create);
    const next = await client.responses.create({
      model: 'scripted',
      previous_response_id: first.id,
      input: '!transcript',
    });
    const transcript = JSON.parse(next.output_text) as { role: string; content: string }[];
    expect(transcript[2]).toEqual({
      role: 'tool',
      content: 'file_search ran for: "blue sky". Its results were not kept.',
    });
  });

  it('is appended to a conversation, and is accepted back as input', async () => {
    const { client } = rig();
    const conv = await client.conversations.create({});
    const r = await client.responses.create({ ...create, conversation: conv.id });
    const items = await client.conversations.items.list(conv.id, { order: 'asc' });
    expect(items.data.map((i) => i.type)).toEqual(['message', 'file_search_call', 'message']);
    const again = await client.responses.create({
      model: 'scripted',
      store: false,
      input: [
        { role: 'user', content: 'blue sky' },
        ...(r.output as never[]),
        { role: 'user', content: '!transcript' },
      ],
    });
    expect(JSON.parse(again.output_text).map((m: { role: string }) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
  });
});
