/**
 * The llama.cpp engine (wllama) under requests that used to crash or hold it, in real Chromium on
 * the tiny test GGUF (random weights, Llama 3 vocabulary: its output is any token at all, which is
 * what makes it a good adversary). After each hostile batch a normal request is answered by the
 * same engine, and no llama.cpp instance was discarded (the engine logs each one it discards).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppSession, openApp } from './harness';
import { createPerSeed, type Outcome, post } from './wllama-bounds.page';

const TINY_URL = '/test-models/intab-tiny-random.gguf';
const options = {
  wllama: {
    stallTimeoutMs: 10_000,
    models: [{ id: 'tiny', url: TINY_URL }],
  },
};
const path = `/tests/e2e/pages/options.html#${encodeURIComponent(JSON.stringify(options))}`;

let app: AppSession & { pageErrors: string[]; consoleLines: string[] };
beforeAll(async () => {
  app = await openApp({ path, testPages: true });
});
afterAll(() => app?.close());

/** Console lines saying a llama.cpp instance was discarded (crashed, hung, replaced). */
const discards = () => app.consoleLines.filter((l) => /wllama '.*': llama\.cpp instance ended/.test(l));
const seeds = (n: number, from: number) => Array.from({ length: n }, (_, i) => from + i * 7919);
const summary = (outcomes: Outcome[]) =>
  outcomes.filter((o) => o.http !== 200).map((o) => `seed ${o.seed}: ${o.http} ${o.code} ${o.message}`);

/** A normal request to the same engine is answered, fully. */
async function stillServes(): Promise<void> {
  const r = await app.page.evaluate(post, {
    path: '/v1/responses',
    body: { model: 'tiny', input: 'still there?', max_output_tokens: 16, temperature: 0 },
  });
  expect(r.http, r.message ?? '').toBe(200);
  expect((r.json.usage as { output_tokens: number }).output_tokens).toBe(16);
}

describe('model output that is not valid UTF-8', () => {
  const strings = {
    type: 'object',
    properties: { title: { type: 'string' }, body: { type: 'string' } },
    required: ['title', 'body'],
    additionalProperties: false,
  };

  it('answers 50 strict json_schema requests with unbounded strings, each 200, with no instance discarded', async () => {
    // Before the fix, 5 of these 50 ended in a 500 model_crashed ([json.exception.type_error.316]
    // invalid UTF-8 byte at index 0: 0xF6) and a reload; none did at 32 tokens, hence 120. Which
    // seeds crash is not fixed (llama.cpp's prompt cache changes the logits slightly between runs),
    // but at about 1 crash in 1200 tokens, 6000 tokens all clean would be a 1-in-150 fluke.
    const outcomes = await app.page.evaluate(createPerSeed, {
      body: {
        model: 'tiny',
        messages: [{ role: 'user', content: 'Write a note.' }],
        max_completion_tokens: 120,
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'note', schema: strings, strict: true },
        },
      },
      seeds: seeds(50, 1),
    });
    expect(summary(outcomes)).toEqual([]);
    for (const o of outcomes) expect(['stop', 'length']).toContain(o.finish);
    expect(discards()).toEqual([]);
    await stillServes();
  }, 900_000);

  it('ends a text cut mid-character by max_completion_tokens cleanly, the partial character dropped', async () => {
    // Only emoji fit the grammar, and Llama 3's vocabulary writes 😀 (F0 9F 98 80) in two tokens or
    // more, the first ending inside the character: caps of 4 to 11 tokens end many answers there.
    const emoji = '😀'.repeat(12);
    const schema = {
      type: 'object',
      properties: { w: { type: 'string', enum: [emoji] } },
      required: ['w'],
      additionalProperties: false,
    };
    const outcomes = await app.page.evaluate(createPerSeed, {
      body: {
        model: 'tiny',
        messages: [{ role: 'user', content: 'Say it.' }],
        response_format: { type: 'json_schema', json_schema: { name: 'w', schema, strict: true } },
      },
      seeds: seeds(24, 5),
      maxTokens: [4, 5, 6, 7, 8, 9, 10, 11],
    });
    expect(summary(outcomes)).toEqual([]);
    const whole = `{"w":"${emoji}"}`;
    for (const o of outcomes) {
      expect(o.finish).toBe('length');
      // A prefix of the one answer the grammar allows, in whole characters (no U+FFFD, no half emoji).
      const text = o.text.replace(/\s/g, '');
      expect(whole.startsWith(text), text).toBe(true);
      expect(text).not.toMatch(/\uFFFD/);
    }
    expect(discards()).toEqual([]);
    await stillServes();
  }, 600_000);

  it('answers plain text from any seed with no instance discarded', async () => {
    const outcomes = await app.page.evaluate(createPerSeed, {
      body: { model: 'tiny', messages: [{ role: 'user', content: 'Babble.' }], max_completion_tokens: 32 },
      seeds: seeds(20, 3),
    });
    expect(summary(outcomes)).toEqual([]);
    expect(discards()).toEqual([]);
    await stillServes();
  }, 600_000);
});
