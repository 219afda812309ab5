/**
 * A non-streaming request whose client gives up stops generating and is stored `cancelled`: when its
 * request signal aborts (the engine worker aborts it when the service worker gives up), and when the
 * body of an early-headers answer is cancelled (what Chromium does once a page has aborted).
 */
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { ScriptedEngine } from '../../src/engine/scripted/scripted-engine';
import { MemoryStore } from '../../src/store/memory-store';
import { makeRig } from '../helpers/server';
import { validateResponse } from '../helpers/spec';

/** 2000 tokens, 20 ms apart: 40 s if nothing stops it, past the polls' hang guard. */
const SLOW = { model: 'scripted', input: '!delay 20 !words 2000' };
/** A hang guard, not a time budget. */
const HANG_MS = 30_000;

function countWords(output: unknown): number {
  return JSON.stringify(output).match(/\bw\d+\b/g)?.length ?? 0;
}

/** A store that remembers the id of the response written to it. */
function watchedStore(): MemoryStore & { lastId: () => string } {
  const store = new MemoryStore();
  let id = '';
  const put = store.putResponse.bind(store);
  store.putResponse = (rec, opts) => {
    id = rec.response.id;
    return put(rec, opts);
  };
  return Object.assign(store, { lastId: () => id });
}

/** The response the store holds, once it is no longer in progress. */
async function settled(store: ReturnType<typeof watchedStore>) {
  await expect
    .poll(async () => (await store.getResponse(store.lastId()))?.response.status, { timeout: HANG_MS })
    .not.toBe('in_progress');
  return (await store.getResponse(store.lastId()))?.response;
}

describe('a JSON request the client gives up on', () => {
  it('stops when the request signal aborts, and is stored cancelled', async () => {
    const store = watchedStore();
    // The engine counts the text it hands out: the abort comes once some has gone out.
    const engine = new ScriptedEngine();
    let texts = 0;
    const generate = engine.generate.bind(engine);
    engine.generate = async function* (req, signal) {
      for await (const chunk of generate(req, signal)) {
        if (chunk.type === 'text') texts++;
        yield chunk;
      }
    };
    const { client } = makeRig({ store, engine });
    const controller = new AbortController();
    const answer = client.responses.create(SLOW, { signal: controller.signal }).catch((e: unknown) => e);
    // Aborted once the run has handed out text (not after a fixed delay, which a loaded machine may
    // pass before the first token).
    await expect.poll(() => texts, { timeout: HANG_MS }).toBeGreaterThan(0);
    controller.abort();
    // The rig's fetch is the server itself, so the SDK may see the cancelled answer or its own abort.
    const seen = await answer;
    if (!(seen instanceof OpenAI.APIUserAbortError)) expect(seen).toMatchObject({ status: 'cancelled' });
    // Cancelled by the abort, not ended by itself: far fewer words than the run's 2000 (counted).
    const response = await settled(store);
    expect(response?.status).toBe('cancelled');
    expect(countWords(response?.output)).toBeGreaterThan(0);
    expect(countWords(response?.output)).toBeLessThan(2000);
    expect(validateResponse(response)).toEqual([]);
  });

  it('stops when the body of an early-headers answer is cancelled', async () => {
    const store = watchedStore();
    const { call } = makeRig({ store, jsonHoldMs: 50 });
    const res = await call('POST', '/responses', SLOW);
    expect(res.status).toBe(200);
    await res.body?.cancel('the page went away');
    const response = await settled(store);
    expect(response?.status).toBe('cancelled');
    expect(countWords(response?.output)).toBeLessThan(2000);
  });
});
