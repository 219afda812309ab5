/**
 * Issue 28 defect 4: on wllama, llama.cpp renders the messages intab hands it with the GGUF's own
 * chat template, so a family whose template writes the tool turn itself must get the result as the
 * caller sent it. Checked here by rendering what `toTemplateMessages` produces with the published
 * templates (`@huggingface/jinja`, as llama.cpp's Jinja engine would) and comparing the tool turn with
 * the template's rendering of the conversation in OpenAI's own shape. Before: Llama 3.1 read the
 * result JSON-encoded twice, mistralai's v3 template raised "Tool call IDs should be alphanumeric
 * strings with length 9!" (and would have wrapped `[TOOL_RESULTS]` twice), Hermes 3's wrapped
 * `<tool_response>` twice.
 */
import { readFileSync } from 'node:fs';
import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import { familyOf } from '../../../src/engine/tool-formats';
import type { ChatMessage } from '../../../src/engine/types';
import { toTemplateMessages } from '../../../src/engine/wllama/template-messages';

/** A Responses call id, as the core stores it: not nine alphanumerics. */
const CALL_ID = 'call_6f1c2ab93d0e44a7';
const RESULT = '{"temp": 21, "note": "say \\"hi\\""}';

const history: ChatMessage[] = [
  { role: 'user', content: 'Weather in Paris?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: CALL_ID, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
    ],
  },
  { role: 'tool', tool_call_id: CALL_ID, name: 'get_weather', content: RESULT },
];

function render(file: string, messages: unknown[]): string {
  const source = readFileSync(new URL(`../../fixtures/templates/${file}`, import.meta.url), 'utf8');
  return new Template(source).render({
    messages,
    // Hermes' tool_use template loops over `tools` unconditionally; the others test it is defined.
    ...(file.includes('tool_use') ? { tools: [] } : {}),
    bos_token: '<s>',
    eos_token: '</s>',
    add_generation_prompt: true,
  });
}

/** The conversation as an OpenAI client sends it to a template: calls as objects, the raw result. */
function openAiShape(id: string): unknown[] {
  return [
    { role: 'user', content: 'Weather in Paris?' },
    {
      role: 'assistant',
      content: '',
      tool_calls: [{ id, type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } }],
    },
    { role: 'tool', tool_call_id: id, content: RESULT },
  ];
}

const cases = [
  {
    family: 'Llama-3.1-8B-Instruct',
    file: 'meta-llama-Llama-3.1-8B-Instruct.jinja',
    turn: '<|start_header_id|>ipython<|end_header_id|>',
  },
  {
    family: 'Mistral-7B-Instruct-v0.3',
    file: 'mistralai-Mistral-7B-Instruct-v0.3.jinja',
    turn: '[TOOL_RESULTS]',
  },
  {
    family: 'Hermes-3-Llama-3.1-8B',
    file: 'NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja',
    turn: '<|im_start|>tool',
  },
];

describe('wllama hands a tool result to the GGUF template once (issue 28 defect 4)', () => {
  it.each(cases)(
    '$family: the tool turn is the published template’s own, encoded once',
    ({ family, file, turn }) => {
      const messages = toTemplateMessages(history, {
        family: familyOf(family),
        system: [],
        toolSection: null,
        modelId: family,
      });
      const ours = render(file, messages);
      const tool = messages.find((m) => m.role === 'tool') as { tool_call_id: string };
      expect(tool.tool_call_id).toMatch(/^[a-zA-Z0-9]{9}$/);
      const published = render(file, openAiShape(tool.tool_call_id));
      const tail = (prompt: string) => prompt.slice(prompt.indexOf(turn));
      expect(ours.split(turn).length - 1).toBe(1);
      expect(tail(ours)).toBe(tail(published));
    },
  );

  it('Llama 3.1: the model reads the result as one JSON string, not a string of a string', () => {
    const messages = toTemplateMessages(history, {
      family: familyOf('Llama-3.1-8B-Instruct'),
      system: [],
      toolSection: null,
      modelId: 'm',
    });
    const prompt = render('meta-llama-Llama-3.1-8B-Instruct.jinja', messages);
    expect(prompt).toContain(
      `<|start_header_id|>ipython<|end_header_id|>\n\n${JSON.stringify(RESULT)}<|eot_id|>`,
    );
    // The whole prompt, call turn included, is the template's rendering of the OpenAI-shaped turns.
    const tool = messages.find((m) => m.role === 'tool') as { tool_call_id: string };
    expect(prompt).toBe(render('meta-llama-Llama-3.1-8B-Instruct.jinja', openAiShape(tool.tool_call_id)));
  });

  it("Mistral v0.3: mistralai's template accepts the id, and the call and its result share it", () => {
    const messages = toTemplateMessages(history, {
      family: familyOf('Mistral-7B-Instruct-v0.3'),
      system: [],
      toolSection: null,
      modelId: 'm',
    });
    const prompt = render('mistralai-Mistral-7B-Instruct-v0.3.jinja', messages);
    const id = (messages.find((m) => m.role === 'tool') as { tool_call_id: string }).tool_call_id;
    expect(prompt).toContain(`[TOOL_RESULTS] {"content": ${RESULT}, "call_id": "${id}"}[/TOOL_RESULTS]`);
    expect(String(messages.find((m) => m.role === 'assistant')?.content)).toContain(`"id": "${id}"`);
  });
});
