/**
 * Issue 28 defect 4 (remainder) on wllama: Meta's Llama 3.1/3.2 templates write `Environment:
 * ipython` and the function list only when given `tools`. intab wrote its own copy of the list into
 * the system text and handed the template no tools, so the model never read `Environment: ipython`.
 * Now the tools go to the template (as `chat_template_kwargs`, with `tools_in_user_message: false`)
 * and intab's own section is gone: rendering the planned messages and variables with the published
 * template (`@huggingface/jinja`) must give the template's own rendering of the OpenAI-shaped
 * conversation with the same tools.
 */
import { readFileSync } from 'node:fs';
import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import { familyOf } from '../../../src/engine/tool-formats';
import type { FunctionToolSpec, GenerateRequest } from '../../../src/engine/types';
import { templateInputs } from '../../../src/engine/wllama/template-inputs';
import { planWllamaRequest } from '../../../src/engine/wllama/wllama-request';
import { generateRequest } from '../../helpers/generate-request';
import { asLlamaCppHandsThem } from '../../helpers/published-template';

const weather: FunctionToolSpec = {
  name: 'get_weather',
  description: 'Current weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: true,
};
const ID = 'call_1';
const history: GenerateRequest['messages'] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Weather in Paris?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: ID, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
    ],
  },
  { role: 'tool', tool_call_id: ID, name: 'get_weather', content: '{"temp": 21}' },
];
/** The same conversation as a client hands a template: the call as an object, the tools as a list. */
const openAiShape = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Weather in Paris?' },
  {
    role: 'assistant',
    content: '',
    tool_calls: [
      { id: ID, type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } },
    ],
  },
  { role: 'tool', tool_call_id: ID, content: '{"temp": 21}' },
];
const openAiTools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather',
      parameters: weather.parameters,
    },
  },
];

function render(file: string, vars: Record<string, unknown>): string {
  const source = readFileSync(new URL(`../../fixtures/templates/${file}`, import.meta.url), 'utf8');
  return new Template(source).render({
    bos_token: '<|begin_of_text|>',
    add_generation_prompt: true,
    date_string: '26 Jul 2024',
    ...vars,
  });
}

const cases = [
  { model: 'Llama-3.1-8B-Instruct', file: 'meta-llama-Llama-3.1-8B-Instruct.jinja' },
  { model: 'Llama-3.2-3B-Instruct', file: 'meta-llama-Llama-3.2-3B-Instruct.jinja' },
];

describe("wllama hands Meta's Llama 3.x templates the tools (issue 28 defect 4)", () => {
  it.each(cases)(
    '$model: the prompt is the published template’s, Environment: ipython included',
    async ({ model, file }) => {
      const { params } = await planWllamaRequest(
        generateRequest({ model, messages: history, tools: [weather], parallelToolCalls: false }),
        { family: familyOf(model), invalidUtf8: [] },
      );
      expect(params.chat_template_kwargs).toEqual({ tools: openAiTools, tools_in_user_message: false });
      const ours = render(file, {
        messages: asLlamaCppHandsThem(params.messages),
        ...params.chat_template_kwargs,
      });
      expect(ours).toContain('Environment: ipython\n');
      // The function list once: the template's, not intab's copy as well.
      expect(ours.split('You have access to the following functions').length - 1).toBe(1);
      expect(ours).toBe(
        render(file, { messages: openAiShape, tools: openAiTools, tools_in_user_message: false }),
      );
    },
  );

  it('token counting gets the same template inputs as a generation', async () => {
    const family = familyOf('Llama-3.1-8B-Instruct');
    const counted = templateInputs(history, {
      family,
      system: [],
      tools: [weather],
      modelId: 'm',
      anyLastTurn: true,
    });
    expect(counted.kwargs).toEqual({ tools: openAiTools, tools_in_user_message: false });
    expect(JSON.stringify(counted.messages)).not.toContain('You have access to the following functions');
  });

  it('other families keep their tool section in the system text and get no tools variable', () => {
    const inputs = templateInputs(history, {
      family: familyOf('Qwen2.5-7B-Instruct'),
      system: [],
      tools: [weather],
      modelId: 'm',
    });
    expect(inputs.kwargs).toBeNull();
    expect(inputs.messages[0]?.content).toContain('<tools>');
  });
});
