/**
 * The llama.cpp engine's wait queue through the real core: past `maxQueue` waiting requests, a
 * request is answered OpenAI's 429 `rate_limit_exceeded` with `retry-after`, and the requests
 * already waiting are served (llama.cpp itself is a fake here: tests/helpers/wllama-fakes.ts).
 */
import { describe, expect, it } from 'vitest';
import { WllamaEngine } from '../../src/engine/wllama';
import { makeRig } from '../helpers/server';
import { tinyGguf } from '../helpers/tiny-gguf';
import { FakeWllama } from '../helpers/wllama-fakes';

describe('the wllama wait queue', () => {
  it('answers 429 with retry-after past maxQueue, and serves the ones that waited', async () => {
    const fakes: FakeWllama[] = [];
    const engine = new WllamaEngine({
      models: [{ id: 'm', files: [tinyGguf()] }],
      maxQueue: 1,
      hasWebGpuF16: async () => false,
      createWllama: () => {
        const fake = Object.assign(new FakeWllama({ tokens: ['a'] }), { tokenMs: 20 });
        fakes.push(fake);
        return fake;
      },
    });
    const { call } = makeRig({ engine });
    await engine.load('m');
    const until = async (ok: () => boolean) => {
      while (!ok()) await new Promise((r) => setTimeout(r, 5));
    };
    const body = { model: 'm', input: 'hi', max_output_tokens: 20 };
    // The first runs (about 1 s), the second waits, the third finds the queue full.
    const running = call('POST', '/responses', { ...body, max_output_tokens: 50 });
    await until(() => (fakes[0]?.calls.length ?? 0) > 0);
    const waiting = call('POST', '/responses', body);
    await new Promise((r) => setTimeout(r, 200));
    const refused = await call('POST', '/responses', body);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await refused.json()).error).toMatchObject({
      type: 'requests',
      code: 'rate_limit_exceeded',
      message: expect.stringMatching(/Limit 1, Used 1, Requested 1\..*try again in \d+s/),
    });
    for (const res of await Promise.all([running, waiting])) {
      expect(res.status).toBe(200);
      expect((await res.json()).status).toBe('completed');
    }
    expect((await call('POST', '/responses', body)).status).toBe(200);
  });
});
