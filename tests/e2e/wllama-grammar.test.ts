/**
 * The llama.cpp grammar of a request under `tool_choice: auto`, in real Chromium on the tiny test
 * GGUF (random weights, Llama 3 family: its output is any token the grammar allows). The prose rule
 * refuses only a real call opening (issue 28 defect 9): llama.cpp accepts the grammar on every seed,
 * and a reply that is not a call never opens like one (`{"name"`), while a plain JSON answer or text
 * starting with whitespace stays possible.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppSession, openApp } from './harness';
import { createPerSeed, type Outcome } from './wllama-bounds.page';

const TINY_URL = '/test-models/intab-tiny-random.gguf';
const options = { wllama: { stallTimeoutMs: 10_000, models: [{ id: 'tiny', url: TINY_URL }] } };
const path = `/tests/e2e/pages/options.html#${encodeURIComponent(JSON.stringify(options))}`;

let app: AppSession & { pageErrors: string[]; consoleLines: string[] };
beforeAll(async () => {
  app = await openApp({ path, testPages: true });
});
afterAll(() => app?.close());

const failed = (outcomes: Outcome[]) =>
  outcomes.filter((o) => o.http !== 200).map((o) => `seed ${o.seed}: ${o.http} ${o.code} ${o.message}`);

describe("wllama under tool_choice 'auto'", () => {
  it('llama.cpp takes the prose-or-call grammar on every seed; prose never opens like a call', async () => {
    const tool = {
      type: 'function',
      function: {
        name: 'lookup',
        parameters: {
          type: 'object',
          properties: { id: { type: 'integer' } },
          required: ['id'],
          additionalProperties: false,
        },
        strict: true,
      },
    };
    const outcomes = await app.page.evaluate(createPerSeed, {
      body: {
        model: 'tiny',
        messages: [{ role: 'user', content: 'Find record 5, or say why not.' }],
        tools: [tool],
        tool_choice: 'auto',
        max_completion_tokens: 24,
        temperature: 1,
      },
      seeds: Array.from({ length: 12 }, (_, i) => 11 + i * 7919),
    });
    expect(failed(outcomes)).toEqual([]);
    for (const o of outcomes) {
      expect(['stop', 'length', 'tool_calls']).toContain(o.finish);
      if (o.finish !== 'tool_calls') expect(o.text).not.toMatch(/^\s*\{\s*"name"/);
    }
    expect(app.consoleLines.filter((l) => /llama\.cpp instance ended/.test(l))).toEqual([]);
  }, 600_000);
});
