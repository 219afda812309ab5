/**
 * When a streamed create answers: after its engine has been handed the work. Handing the Response
 * across to the service worker costs the engine worker's thread about a millisecond (its body is a
 * transferred stream), which must not come before the prefill starts; an engine that never waits
 * must still be answered at once. Order only, never timings (those are `npm run bench`'s).
 */
import { describe, expect, it } from 'vitest';
import { ScriptedEngine } from '../../src/engine/scripted/scripted-engine';
import type { EngineChunk, GenerateRequest } from '../../src/engine/types';
import { makeRig, readSse } from '../helpers/server';

/**
 * The scripted engine behind a wait, as llama.cpp is: a few awaited steps that resolve at once (the
 * queue's gate, the loaded instance, the request's plan: wllama's path has about as many), then the
 * call into its worker, then a wait for the first token.
 */
class WaitingEngine extends ScriptedEngine {
  constructor(private readonly order: string[]) {
    super();
  }
  override async *generate(req: GenerateRequest, signal: AbortSignal): AsyncIterable<EngineChunk> {
    for (let i = 0; i < 20; i++) await Promise.resolve();
    this.order.push('engine started');
    await new Promise((r) => setTimeout(r, 30));
    yield* super.generate(req, signal);
  }
}

const body = { model: 'scripted', input: 'hello there', stream: true };

describe('a streamed create', () => {
  it('answers with its headers only after the engine has been handed the work', async () => {
    for (const store of [false, true]) {
      const order: string[] = [];
      const { call } = makeRig({ engine: new WaitingEngine(order) });
      const res = await call('POST', '/responses', { ...body, store });
      order.push('headers');
      expect(order).toEqual(['engine started', 'headers']);
      const events = await readSse(res);
      expect(events.map((e) => e.event).at(-1)).toBe('response.completed');
      expect(events.find((e) => e.event === 'response.output_text.done')?.data.text).toBe(
        'You said: hello there',
      );
    }
  });

  it('answers an engine that never waits before its run has ended, the first events ready', async () => {
    const { call } = makeRig();
    const res = await call('POST', '/responses', { ...body, input: '!words 3000' });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('event: response.created');
    // Not the whole answer in one chunk: the headers did not wait for the run to finish.
    expect(first).not.toContain('event: response.completed');
    await reader.cancel();
  });
});
