/**
 * Issue 44, item 4: `tool_choice: none` dropped the tool list from the prompt and a named choice
 * kept only that tool, on both engines and every family, where llama.cpp shows every tool the
 * request declares for every choice and leaves the choice to its grammar. The model then saw past
 * calls to tools it was no longer shown, and the prompt changed with the choice, so web-llm's KV
 * cache and llama.cpp's prefix cache missed. Now the prompt is the same bytes for every choice, and
 * only what the reply may call changes.
 */
import { describe, expect, it } from 'vitest';
import { familyOf } from '../../src/engine/tool-formats';
import type { GenerateRequest, ToolChoiceSpec } from '../../src/engine/types';
import { planChatRequest } from '../../src/engine/webllm/webllm-request';
import { ANY_TEXT_GRAMMAR, planWllamaRequest } from '../../src/engine/wllama/wllama-request';
import { generateRequest } from '../helpers/generate-request';
import { makeRig } from '../helpers/server';
import { CITY_WEATHER_TOOLS } from '../helpers/tool-specs';
import { QWEN3, setup } from '../helpers/webllm-fakes';
import { type ConvTemplateName, webllmPrompt, webllmReusesCache } from '../helpers/webllm-prompt';
import { CHOICE_CONVERSATIONS, described, runCode } from './webllm/golden-conversations';
import { NATIVE } from './webllm/golden-families';
import { TAUGHT } from './webllm/golden-taught-families';
import { WLLAMA_ONLY } from './wllama/golden-differences';

const CHOICES: Array<[string, ToolChoiceSpec]> = [
  ['none', 'none'],
  ['required', 'required'],
  ['get_weather named', { name: 'get_weather' }],
  ['run_code named', { name: 'run_code' }],
];

const history = CHOICE_CONVERSATIONS['tool_choice none after a call']?.messages ?? [];

function req(model: string, toolChoice: ToolChoiceSpec, over: Partial<GenerateRequest> = {}) {
  return generateRequest({ model, messages: history, tools: [described, runCode], toolChoice, ...over });
}

/** web-llm's prompt text for the request, as its conversation template builds it. */
async function webllmText(conv: ConvTemplateName, r: GenerateRequest): Promise<string> {
  return webllmPrompt(conv, planChatRequest(r, { vision: false }, { now: new Date(0) }).body);
}

/** What wllama hands llama.cpp to render: the template's messages and variables. */
async function wllamaInputs(r: GenerateRequest): Promise<string> {
  const { params } = await planWllamaRequest(r, { family: familyOf(r.model), invalidUtf8: [] });
  return JSON.stringify([params.messages, params.chat_template_kwargs ?? null]);
}

describe.each([...NATIVE, ...TAUGHT])('$model on web-llm: one prompt for every tool choice', (family) => {
  it.each(CHOICES)('%s: the bytes of auto', async (_name, choice) => {
    const auto = await webllmText(family.conv, req(family.model, 'auto'));
    expect(auto).toContain('run_code');
    expect(await webllmText(family.conv, req(family.model, choice))).toBe(auto);
  });
});

describe.each([...NATIVE, ...WLLAMA_ONLY, ...TAUGHT])(
  '$model on wllama: one prompt for every tool choice',
  (family) => {
    it.each(CHOICES)('%s: the inputs of auto', async (_name, choice) => {
      const auto = await wllamaInputs(req(family.model, 'auto'));
      expect(auto).toContain('run_code');
      expect(await wllamaInputs(req(family.model, choice))).toBe(auto);
    });
  },
);

describe('the choice is held by what the reply may call, not by the prompt', () => {
  const json = { format: { type: 'json_object' as const } };

  it('keeps the JSON instruction the same for every choice', async () => {
    const auto = await wllamaInputs(req(QWEN3, 'auto', json));
    expect(await wllamaInputs(req(QWEN3, 'none', json))).toBe(auto);
    expect(await webllmText('qwen3', req(QWEN3, 'none', json))).toBe(
      await webllmText('qwen3', req(QWEN3, 'auto', json)),
    );
  });

  it('none: no grammar for a call, and no call parsed from the reply', async () => {
    const wllama = await planWllamaRequest(req(QWEN3, 'none'), { family: familyOf(QWEN3), invalidUtf8: [] });
    expect(wllama.params.grammar).toBe(ANY_TEXT_GRAMMAR);
    expect(wllama.reply.format).toBeNull();
    const webllm = planChatRequest(req(QWEN3, 'none'), { vision: false });
    expect(webllm.body).not.toHaveProperty('response_format');
    expect(webllm.reply.format).toBeNull();
  });

  it('a named choice: only that tool can be called', async () => {
    const wllama = await planWllamaRequest(req(QWEN3, { name: 'run_code' }), {
      family: familyOf(QWEN3),
      invalidUtf8: [],
    });
    expect(wllama.params.grammar).toContain('run_code');
    expect(wllama.params.grammar).not.toContain('get_weather');
    expect(wllama.reply.toolNames).toEqual(['run_code']);
    const webllm = planChatRequest(req(QWEN3, { name: 'run_code' }), { vision: false });
    const tag = JSON.stringify(webllm.body.response_format);
    expect(tag).toContain('run_code');
    expect(tag).not.toContain('get_weather');
  });

  it('allowed_tools: only those can be called, every tool is shown', async () => {
    const r = req(QWEN3, 'required', { allowedTools: ['get_weather'] });
    const wllama = await planWllamaRequest(r, { family: familyOf(QWEN3), invalidUtf8: [] });
    expect(wllama.params.grammar).not.toContain('run_code');
    expect(wllama.reply.toolNames).toEqual(['get_weather']);
    expect(await wllamaInputs(r)).toBe(await wllamaInputs(req(QWEN3, 'auto')));
    const webllm = planChatRequest(r, { vision: false });
    expect(JSON.stringify(webllm.body.response_format)).not.toContain('run_code');
    expect(await webllmText('qwen3', r)).toBe(await webllmText('qwen3', req(QWEN3, 'auto')));
  });
});

describe('Qwen3 on web-llm: "answer now, no more tools" keeps the tool loop’s cache', () => {
  it('the `none` turn after an `auto` call extends the conversation web-llm holds', async () => {
    const { engine, fake } = setup();
    const { client } = makeRig({ engine });
    await engine.load(QWEN3);
    const decoded = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>';
    fake().reply = [{ text: decoded }];
    const tools = CITY_WEATHER_TOOLS;
    const first = await client.responses.create({ model: QWEN3, input: 'Weather in Oslo?', tools });
    const call = first.output.find((i) => i.type === 'function_call');
    fake().reply = [{ text: 'It is 21 °C.' }];
    await client.responses.create({
      model: QWEN3,
      tools,
      tool_choice: 'none',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call?.call_id ?? '', output: '{"temp": 21}' }],
    });
    const [one, two] = fake().requests;
    if (!one || !two) throw new Error('two requests expected');
    expect(await webllmReusesCache('qwen3', one, decoded, two)).toBe(true);
  });
});
