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
    const outcomes = await app.page.evaluate(createPerSeed, {
      body: {
        model: 'tiny',
        messages: [{ role: 'user', content: 'Write a note.' }],
        max_completion_tokens: 48,
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
  }, 300_000);

  it('ends a text cut mid-character by max_completion_tokens cleanly, the partial character dropped', async () => {
    // Only CJK characters fit the grammar, and each may come as one token or byte by byte, so caps
    // of 4 to 11 tokens end some answers inside a character.
    const cjk = {
      type: 'object',
      properties: { w: { type: 'string', enum: ['日本語の文字列と漢字と仮名の文章'] } },
      required: ['w'],
      additionalProperties: false,
    };
    const outcomes = await app.page.evaluate(createPerSeed, {
      body: {
        model: 'tiny',
        messages: [{ role: 'user', content: 'Say it.' }],
        response_format: { type: 'json_schema', json_schema: { name: 'w', schema: cjk, strict: true } },
      },
      seeds: seeds(24, 5),
      maxTokens: [4, 5, 6, 7, 8, 9, 10, 11],
    });
    expect(summary(outcomes)).toEqual([]);
    for (const o of outcomes) {
      expect(o.finish).toBe('length');
      expect('{"w": "日本語の文字列と漢字と仮名の文章"}'.replace(/\s/g, '')).toContain(
        o.text.replace(/\s/g, ''),
      );
    }
    expect(discards()).toEqual([]);
    await stillServes();
  }, 300_000);

  it('answers plain text from any seed with no instance discarded', async () => {
    const outcomes = await app.page.evaluate(createPerSeed, {
      body: { model: 'tiny', messages: [{ role: 'user', content: 'Babble.' }], max_completion_tokens: 48 },
      seeds: seeds(30, 3),
    });
    expect(summary(outcomes)).toEqual([]);
    expect(discards()).toEqual([]);
    await stillServes();
  }, 300_000);
});
