/**
 * Tool calls in the Llama 3 format on llama.cpp in Chromium: 'required' and a named tool choice hold
 * the tiny test GGUF to calls whose arguments validate, on responses and chat completions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sdkChat, sdkCreate } from './wllama.page';
import {
  ajv,
  choiceOf,
  closeWllamaApp,
  type Json,
  openWllamaApp,
  outputText,
  type WllamaApp,
} from './wllama-app';

let app: WllamaApp;
beforeAll(async () => {
  app = await openWllamaApp();
});
afterAll(() => closeWllamaApp(app));

describe('tool calls in the Llama 3 format', () => {
  const tools = [
    {
      type: 'function',
      name: 'get_weather',
      description: 'Weather for a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string', maxLength: 12 }, unit: { type: 'string', enum: ['c', 'f'] } },
        required: ['city', 'unit'],
        additionalProperties: false,
      },
      strict: true,
    },
    {
      type: 'function',
      name: 'lookup',
      description: 'Look a record up',
      parameters: {
        type: 'object',
        properties: { id: { type: 'integer', minimum: 1, maximum: 999 } },
        required: ['id'],
        additionalProperties: false,
      },
      strict: true,
    },
  ];
  const byName = new Map(tools.map((t) => [t.name, ajv.compile(t.parameters)]));

  const calls = (r: Json | null) =>
    ((r?.output as Json[]) ?? []).filter((i) => i.type === 'function_call') as {
      name: string;
      arguments: string;
    }[];

  it("'required' gives function calls whose arguments validate", async () => {
    for (const seed of [1, 2, 3]) {
      const { response, error } = await app.page.evaluate(sdkCreate, {
        model: 'tiny',
        input: `What is the weather? (${seed})`,
        tools,
        tool_choice: 'required',
        parallel_tool_calls: false,
        max_output_tokens: 200,
        temperature: 1,
      });
      expect(error).toBeNull();
      const found = calls(response);
      expect(found).toHaveLength(1);
      const [call] = found;
      const validate = byName.get(call?.name ?? '');
      expect(validate, call?.name).toBeTruthy();
      expect(validate?.(JSON.parse(call?.arguments ?? 'null')), JSON.stringify(validate?.errors)).toBe(true);
      expect(outputText(response)).toBe('');
    }
  });

  it('a named tool choice calls that tool', async () => {
    const { response } = await app.page.evaluate(sdkCreate, {
      model: 'tiny',
      input: 'Find record 5',
      tools,
      tool_choice: { type: 'function', name: 'lookup' },
      max_output_tokens: 200,
      temperature: 1,
    });
    const found = calls(response);
    expect(found.length).toBeGreaterThanOrEqual(1);
    for (const call of found) {
      expect(call.name).toBe('lookup');
      expect(byName.get('lookup')?.(JSON.parse(call.arguments))).toBe(true);
    }
  });

  it('chat completions with tool_choice required answer tool_calls that validate', async () => {
    const r = await app.page.evaluate(sdkChat, {
      model: 'tiny',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: tools.map(({ type, name, description, parameters, strict }) => ({
        type,
        function: { name, description, parameters, strict },
      })),
      tool_choice: 'required',
      parallel_tool_calls: false,
      max_tokens: 200,
      temperature: 1,
    });
    expect(r.error).toBeNull();
    const choice = choiceOf(r);
    expect(choice.finish_reason).toBe('tool_calls');
    const toolCalls = (choice.message as Json).tool_calls as {
      function: { name: string; arguments: string };
    }[];
    expect(toolCalls).toHaveLength(1);
    const validate = byName.get(toolCalls[0]?.function.name ?? '');
    expect(validate?.(JSON.parse(toolCalls[0]?.function.arguments ?? 'null'))).toBe(true);
  });
});
