/**
 * Family formats through real llama.cpp in Chromium, on the tiny test GGUF (random weights, Llama 3
 * vocabulary: its output is any token the grammar allows).
 * - Under `tool_choice: auto` the prose rule refuses only a real call opening (issue 28 defect 9):
 *   llama.cpp accepts the grammar on every seed, and a reply that is not a call never opens like one.
 * - A tool round trip on the same weights with Meta's published Llama 3.1 template in the GGUF
 *   (issue 28 defect 4): the prompt llama.cpp read (the engine's `logPrompts` line) is the published
 *   template's rendering of the conversation (a result encoded twice would not be).
 */
import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import { mistralCallId } from '../../src/engine/tool-formats/mistral';
import { weatherLoopInput, weatherLoopMessages } from './weather-loop';
import { createPerSeed, type Outcome } from './wllama-bounds.page';
import { addWithTemplate, respond } from './wllama-formats.page';
import { expectPrompt, publishedTemplate, TINY_URL, useTinyApp } from './wllama-template-app';

const app = useTinyApp();

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
    const outcomes = await app().page.evaluate(createPerSeed, {
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
    expect(app().consoleLines.filter((l) => /llama\.cpp instance ended/.test(l))).toEqual([]);
  }, 600_000);
});

describe("tool results through the GGUF's own Llama 3.1 template", () => {
  it('llama.cpp renders the round trip as the published template does, token for token', async () => {
    const template = publishedTemplate('meta-llama-Llama-3.1-8B-Instruct.jinja');
    const listing = await app().page.evaluate(addWithTemplate, { id: 'tiny31', url: TINY_URL, template });
    expect(listing).toMatchObject({ id: 'tiny31', engine: 'wllama' });
    const result = '{"temp": 21, "note": "say \\"hi\\""}';
    const r = await app().page.evaluate(respond, {
      model: 'tiny31',
      input: weatherLoopInput('call_6f1c2ab93d0e44a7', result),
      max_output_tokens: 16,
      temperature: 0,
    });
    expect(r.error).toBeNull();
    const published = new Template(template).render({
      messages: weatherLoopMessages('x', result),
      bos_token: '<|begin_of_text|>',
      add_generation_prompt: true,
    });
    expect(published).toContain(`ipython<|end_header_id|>\n\n${JSON.stringify(result)}<|eot_id|>`);
    expectPrompt(app(), 'tiny31', published, r.inputTokens);
  }, 300_000);

  it("mistralai's v0.3 template takes the round trip (it raised on the Responses call id before)", async () => {
    const template = publishedTemplate('mistralai-Mistral-7B-Instruct-v0.3.jinja');
    await app().page.evaluate(addWithTemplate, { id: 'tiny-mistral', url: TINY_URL, template });
    const callId = 'call_6f1c2ab93d0e44a7';
    const r = await app().page.evaluate(respond, {
      model: 'tiny-mistral',
      input: weatherLoopInput(callId),
      max_output_tokens: 16,
      temperature: 0,
    });
    expect(r.error).toBeNull();
    // The published template's rendering of the conversation, the call as an object under the
    // 9-character id (intab hands llama.cpp the call as `tool_calls`, so no space goes before
    // `[TOOL_CALLS]`), the result once.
    const id = mistralCallId(callId);
    const published = new Template(template).render({
      messages: weatherLoopMessages(id),
      bos_token: '<|begin_of_text|>',
      eos_token: '<|eot_id|>',
    });
    expect(published).toContain('[/INST][TOOL_CALLS] [{"name": "get_weather"');
    expect(published).toContain(
      `[TOOL_RESULTS] {"content": {"temp": 21}, "call_id": "${id}"}[/TOOL_RESULTS]`,
    );
    expectPrompt(app(), 'tiny-mistral', published, r.inputTokens);
  }, 300_000);
});
