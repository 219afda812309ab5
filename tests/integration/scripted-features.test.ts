import type { ResponseFunctionToolCall, ResponseReasoningItem } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { makeRig, readSse } from '../helpers/server';
import { validateResponse, validateStreamEvent } from '../helpers/spec';

const weather = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather for a city',
  strict: true,
  parameters: {
    type: 'object',
    properties: {
      city: { type: 'string' },
      unit: { type: 'string', enum: ['c', 'f'] },
      days: { type: 'integer' },
    },
    required: ['city', 'unit'],
    additionalProperties: false,
  },
};
const time = {
  type: 'function' as const,
  name: 'get_time',
  strict: true,
  parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
};

describe('scripted model behaviours through the SDK', () => {
  it('!words N replies with exactly N tokens', async () => {
    const { client } = makeRig();
    const r = await client.responses.create({ model: 'scripted', input: '!words 5' });
    expect(r.output_text).toBe('w1 w2 w3 w4 w5');
    expect(r.usage?.output_tokens).toBe(5);
  });

  it('!refuse answers with a refusal part, streamed as refusal events', async () => {
    const { call } = makeRig();
    const frames = await readSse(
      await call('POST', '/responses', { model: 'scripted', input: '!refuse', stream: true }),
    );
    const types = frames.map((f) => f.data.type);
    expect(types).toContain('response.refusal.delta');
    expect(types).toContain('response.refusal.done');
    const final = frames.at(-1)?.data.response as { output: { content: { type: string }[] }[] };
    expect(final.output[0]?.content[0]?.type).toBe('refusal');
    for (const f of frames) expect(validateStreamEvent(f.data)).toEqual([]);
  });

  it('reasons first when reasoning.effort asks for it', async () => {
    const { client } = makeRig();
    const r = await client.responses.create({
      model: 'scripted',
      input: 'why',
      reasoning: { effort: 'low' },
    });
    const reasoning = r.output[0] as ResponseReasoningItem;
    expect(reasoning.type).toBe('reasoning');
    expect(reasoning.content).toEqual([{ type: 'reasoning_text', text: 'Thinking about: why' }]);
    expect(r.output_text).toBe('You said: why');
    expect(r.usage?.output_tokens_details.reasoning_tokens).toBe(3);
    expect(validateResponse(r)).toEqual([]);
  });

  it('does not reason with effort minimal', async () => {
    const { client } = makeRig();
    const r = await client.responses.create({
      model: 'scripted',
      input: 'why',
      reasoning: { effort: 'minimal' },
    });
    expect(r.output.map((o) => o.type)).toEqual(['message']);
  });

  it('calls the first tool with a deterministic instance of its schema, then reads the tool output', async () => {
    const { client } = makeRig();
    const first = await client.responses.create({
      model: 'scripted',
      input: 'weather?',
      tools: [weather, time],
    });
    const call = first.output[0] as ResponseFunctionToolCall;
    expect(call.type).toBe('function_call');
    expect(call.name).toBe('get_weather');
    expect(JSON.parse(call.arguments)).toEqual({ city: 'city', unit: 'c' });
    expect(validateResponse(first)).toEqual([]);
    // Via previous_response_id…
    const second = await client.responses.create({
      model: 'scripted',
      previous_response_id: first.id,
      tools: [weather, time],
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '21C' }],
    });
    expect(second.output_text).toBe('Tool get_weather returned: 21C');
    // …and via the full input list.
    const third = await client.responses.create({
      model: 'scripted',
      tools: [weather, time],
      input: [
        { role: 'user', content: 'weather?' },
        { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
        { type: 'function_call_output', call_id: call.call_id, output: '22C' },
      ],
    });
    expect(third.output_text).toBe('Tool get_weather returned: 22C');
  });

  it('calls every allowed tool with !all-tools, and the named one with tool_choice', async () => {
    const { client } = makeRig();
    const all = await client.responses.create({
      model: 'scripted',
      input: '!all-tools',
      tools: [weather, time],
    });
    expect(all.output.map((o) => (o as ResponseFunctionToolCall).name)).toEqual(['get_weather', 'get_time']);
    const named = await client.responses.create({
      model: 'scripted',
      input: 'x',
      tools: [weather, time],
      tool_choice: { type: 'function', name: 'get_time' },
    });
    expect(named.output.map((o) => (o as ResponseFunctionToolCall).name)).toEqual(['get_time']);
    const none = await client.responses.create({
      model: 'scripted',
      input: 'x',
      tools: [weather],
      tool_choice: 'none',
    });
    expect(none.output_text).toBe('You said: x');
  });

  it('streams function call events the SDK accumulator accepts', async () => {
    const { client } = makeRig();
    const stream = client.responses.stream({ model: 'scripted', input: 'go', tools: [weather] });
    const types: string[] = [];
    stream.on('event', (e) => types.push(e.type));
    const final = await stream.finalResponse();
    expect(types).toContain('response.function_call_arguments.done');
    expect((final.output[0] as ResponseFunctionToolCall).arguments).toBe('{"city":"city","unit":"c"}');
  });

  it('answers json_schema with an instance of the schema, and json_object with an echo', async () => {
    const { client } = makeRig();
    const schema = {
      type: 'object',
      properties: { n: { type: 'number' }, ok: { type: 'boolean' } },
      required: ['n', 'ok'],
      additionalProperties: false,
    };
    const r = await client.responses.create({
      model: 'scripted',
      input: 'data',
      text: { format: { type: 'json_schema', name: 'out', schema, strict: true } },
    });
    expect(JSON.parse(r.output_text)).toEqual({ n: 1, ok: true });
    expect(r.text?.format).toMatchObject({ type: 'json_schema', name: 'out' });
    const o = await client.responses.create({
      model: 'scripted',
      input: 'hey you, in json',
      text: { format: { type: 'json_object' } },
    });
    expect(JSON.parse(o.output_text)).toEqual({ echo: 'hey you, in json' });
  });

  it('json_object: the input must mention JSON (a 400 on input); instructions count', async () => {
    const { call, client } = makeRig();
    const res = await call('POST', '/responses', {
      model: 'scripted',
      input: 'hey you',
      text: { format: { type: 'json_object' } },
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({
      type: 'invalid_request_error',
      param: 'input',
      message: expect.stringContaining("must contain the word 'json'"),
    });
    const ok = await client.responses.create({
      model: 'scripted',
      instructions: 'Reply as a JSON object.',
      input: 'hey you',
      text: { format: { type: 'json_object' } },
    });
    expect(JSON.parse(ok.output_text)).toEqual({ echo: 'hey you' });
  });

  it('rejects tools it cannot run locally, naming the param', async () => {
    const { call } = makeRig();
    const res = await call('POST', '/responses', {
      model: 'scripted',
      input: 'x',
      tools: [weather, { type: 'web_search' }],
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.param).toBe('tools[1].type');
  });
});
