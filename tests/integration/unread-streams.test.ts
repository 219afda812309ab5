/**
 * Issue 15, class 14: a direct stream that nobody reads any more is stopped and stored `cancelled`,
 * as an abort would, instead of being generated to its end for nobody: when its reader goes silent
 * for `streamIdleMs` (Chromium's stopped service worker), or its request is aborted (msw, Node). A
 * background stream's reader going silent stops nothing. In Node against the core.
 */
import { describe, expect, it } from 'vitest';
import { makeRig } from '../helpers/server';
import { validateResponse } from '../helpers/spec';

const BASE = 'http://intab.test/v1';

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 3000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Reads the first chunks of an SSE body, then never reads again (and never cancels). */
async function readThenGoSilent(res: Response): Promise<string> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  let text = '';
  while (!text.includes('response.output_text.delta'))
    text += new TextDecoder().decode((await reader.read()).value);
  return /"id":"(resp_[0-9a-f]+)"/.exec(text)?.[1] as string;
}

const words = (r: { output: unknown[] }) => JSON.stringify(r.output).match(/\bw\d+\b/g)?.length ?? 0;

describe('a stream nobody reads', () => {
  it('stops generating once its reader has been silent for streamIdleMs, stored cancelled', async () => {
    const { call, client } = makeRig({ streamIdleMs: 200 });
    const id = await readThenGoSilent(
      await call('POST', '/responses', { model: 'scripted', input: '!delay 5 !words 1000', stream: true }),
    );
    // 1000 tokens at 5 ms would take 5 s; the run stops within the idle bound instead.
    const stored = await until(
      () => client.responses.retrieve(id),
      (r) => r.status !== 'in_progress',
      2000,
    );
    expect(stored.status).toBe('cancelled');
    expect(words(stored)).toBeLessThan(1000);
    expect(validateResponse(stored)).toEqual([]);
  });

  it('stops when the request is aborted (a Fetch server, msw)', async () => {
    const { server, client } = makeRig();
    const abort = new AbortController();
    const res = await server.fetch(
      new Request(`${BASE}/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'scripted', input: '!delay 5 !words 1000', stream: true }),
        signal: abort.signal,
      }),
    );
    const id = await readThenGoSilent(res);
    abort.abort();
    const stored = await until(
      () => client.responses.retrieve(id),
      (r) => r.status !== 'in_progress',
      1000,
    );
    expect(stored.status).toBe('cancelled');
    expect(words(stored)).toBeLessThan(1000);
  });

  it('lets a background response run on when its stream reader goes silent', async () => {
    const { call, client } = makeRig({ streamIdleMs: 100 });
    const id = await readThenGoSilent(
      await call('POST', '/responses', {
        model: 'scripted',
        input: '!delay 2 !words 200',
        stream: true,
        background: true,
      }),
    );
    const done = await until(
      () => client.responses.retrieve(id),
      (r) => r.status !== 'in_progress' && r.status !== 'queued',
      3000,
    );
    expect(done.status).toBe('completed');
    expect(words(done)).toBe(200);
  });

  it('stops a chat completion stream nobody reads', async () => {
    let generated = 0;
    const { ScriptedEngine } = await import('../../src/engine/scripted/scripted-engine');
    const engine = new ScriptedEngine();
    const generate = engine.generate.bind(engine);
    engine.generate = async function* (req, signal) {
      for await (const chunk of generate(req, signal)) {
        generated++;
        yield chunk;
      }
    };
    const { call } = makeRig({ engine, streamIdleMs: 150 });
    const res = await call('POST', '/chat/completions', {
      model: 'scripted',
      messages: [{ role: 'user', content: '!delay 5 !words 1000' }],
      stream: true,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await new Promise((r) => setTimeout(r, 800));
    const after = generated;
    await new Promise((r) => setTimeout(r, 200));
    expect(generated).toBe(after);
    expect(generated).toBeLessThan(1000);
  });
});
