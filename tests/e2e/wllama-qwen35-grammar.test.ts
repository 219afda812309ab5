/**
 * Qwen3.5's raw-value grammar (issue 28 defect 1) in real llama.cpp in Chromium, on the tiny test GGUF
 * with the published Qwen3.5 template (random weights: the output is whatever the grammar allows).
 * Under `tool_choice: required` llama.cpp takes the grammar (the 14-state value automaton and the
 * free parameters of a tool that lists none) on every seed, and nothing crashes the instance.
 */
import { describe, expect, it } from 'vitest';
import { createPerSeed } from './wllama-bounds.page';
import { addWithTemplate } from './wllama-formats.page';
import { publishedTemplate, TINY_URL, useTinyApp } from './wllama-template-app';

const app = useTinyApp();

describe('Qwen3.5 raw parameter values in llama.cpp', () => {
  it('llama.cpp takes the grammar on every seed under required', async () => {
    const template = publishedTemplate('Qwen3.5-4B.jinja');
    await app().page.evaluate(addWithTemplate, { id: 'tiny-qwen35-g', url: TINY_URL, template });
    const writeFile = {
      type: 'function',
      function: {
        name: 'write_file',
        parameters: {
          type: 'object',
          properties: { path: { type: 'string' }, content: { type: 'string' }, lines: { type: 'integer' } },
          required: ['path', 'content'],
        },
      },
    };
    const run = { type: 'function', function: { name: 'run', parameters: { type: 'object' } } };
    const outcomes = await app().page.evaluate(createPerSeed, {
      body: {
        model: 'tiny-qwen35-g',
        messages: [{ role: 'user', content: 'Write a.py, or run something.' }],
        tools: [writeFile, run],
        tool_choice: 'required',
        reasoning_effort: 'none',
        max_completion_tokens: 48,
        temperature: 1,
      },
      seeds: Array.from({ length: 6 }, (_, i) => 5 + i * 7919),
    });
    expect(outcomes.filter((o) => o.http !== 200).map((o) => `${o.seed}: ${o.http} ${o.message}`)).toEqual(
      [],
    );
    for (const o of outcomes) expect(['tool_calls', 'length']).toContain(o.finish);
    expect(app().consoleLines.filter((l) => /llama\.cpp instance ended/.test(l))).toEqual([]);
  }, 600_000);
});
