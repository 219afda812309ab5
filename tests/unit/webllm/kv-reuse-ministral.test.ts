/**
 * Issue 33, item 5: Ministral 3 Reasoning's template keeps every past turn's `[THINK]…[/THINK]` (a
 * `thinking` chunk, which llama.cpp makes of `reasoning_content`), and intab dropped it on both
 * engines: the prompt was not the published one, and web-llm, which reuses its KV cache only for a
 * history equal to what it decoded, missed the cache at every step of a tool loop.
 * (tests/unit/webllm/goldens.test.ts and tests/unit/wllama/goldens.test.ts compare the published
 * rendering of a loop with reasoning on both engines.)
 */
import { describe, expect, it } from 'vitest';
import { makeRig } from '../../helpers/server';
import { CITY_WEATHER_TOOLS as tools } from '../../helpers/tool-specs';
import { appConfig, setup } from '../../helpers/webllm-fakes';
import { webllmPrompt, webllmReusesCache } from '../../helpers/webllm-prompt';

const MINISTRAL = 'Ministral-3-3B-Reasoning-2512-q4f16_1-MLC';

describe('Ministral 3 Reasoning: a tool loop keeps the turn’s think block', () => {
  it('the second turn extends the conversation web-llm holds after the first', async () => {
    const { engine, fake } = setup({
      appConfig: {
        model_list: [
          ...appConfig.model_list,
          { model: 'https://hf.co/m', model_id: MINISTRAL, model_lib: 'https://x/m.wasm' },
        ],
      },
    });
    const { client } = makeRig({ engine });
    await engine.load(MINISTRAL);
    const reply = [
      '[THINK]',
      'The user wants Oslo.',
      '[/THINK]',
      '[TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}',
    ];
    fake().reply = reply.map((text) => ({ text }));
    const first = await client.responses.create({ model: MINISTRAL, input: 'Weather in Oslo?', tools });
    expect(first.output.map((i) => i.type)).toEqual(['reasoning', 'function_call']);
    const call = first.output.find((i) => i.type === 'function_call');
    fake().reply = [{ text: 'It is 21 °C.' }];
    await client.responses.create({
      model: MINISTRAL,
      tools,
      input: [
        { role: 'user', content: 'Weather in Oslo?' },
        ...first.output,
        { type: 'function_call_output', call_id: call?.call_id ?? '', output: '{"temp": 21}' },
      ] as never,
    });
    const [one, two] = fake().requests;
    if (!one || !two) throw new Error('two requests expected');
    const decoded = reply.join('');
    const prompt = await webllmPrompt('ministral3_reasoning', two);
    expect(prompt).toContain(`[/INST]${decoded}</s>[TOOL_RESULTS]`);
    expect(await webllmReusesCache('ministral3_reasoning', one, decoded, two)).toBe(true);
  });
});
