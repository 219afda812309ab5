/**
 * Every accepted create field comes back on the response object as OpenAI echoes it: in the JSON
 * answer, in the stream's terminal event and in the stored object, each spec-valid.
 */
import { describe, expect, it } from 'vitest';
import { makeRig, readSse } from '../helpers/server';
import { validateResponse, validateStreamEvent } from '../helpers/spec';

const fn = { type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} } };

const request = {
  model: 'scripted',
  input: 'echo me',
  instructions: 'Be brief. Answer in JSON.',
  service_tier: 'flex',
  prompt_cache_key: 'cache-1',
  prompt_cache_retention: '24h',
  safety_identifier: 'user-hash-1',
  user: 'legacy-user',
  metadata: { app: 'intab', run: '7' },
  text: { format: { type: 'json_object' }, verbosity: 'low' },
  temperature: 0.3,
  top_p: 0.8,
  top_logprobs: 4,
  truncation: 'auto',
  max_output_tokens: 64,
  max_tool_calls: 3,
  parallel_tool_calls: false,
  tools: [fn],
  tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [{ type: 'function', name: 'lookup' }] },
  reasoning: { effort: 'minimal', summary: 'concise' },
  store: true,
  stream_options: { include_obfuscation: false },
};

const echoed = {
  instructions: 'Be brief. Answer in JSON.',
  service_tier: 'flex',
  prompt_cache_key: 'cache-1',
  prompt_cache_retention: '24h',
  safety_identifier: 'user-hash-1',
  user: 'legacy-user',
  metadata: { app: 'intab', run: '7' },
  text: { format: { type: 'json_object' }, verbosity: 'low' },
  temperature: 0.3,
  top_p: 0.8,
  top_logprobs: 4,
  truncation: 'auto',
  max_output_tokens: 64,
  max_tool_calls: 3,
  parallel_tool_calls: false,
  // strict defaults to true, as OpenAI's function tools do.
  tools: [{ ...fn, description: null, strict: true }],
  tool_choice: request.tool_choice,
  reasoning: { effort: 'minimal', summary: 'concise' },
  store: true,
  background: false,
};

describe('echo of accepted fields', () => {
  it('comes back on the JSON answer, the stream and the stored object', async () => {
    const { call } = makeRig();
    const res = await call('POST', '/responses', { ...request, stream: false });
    expect(res.status).toBe(200);
    const json = await res.json();
    expect(json).toMatchObject(echoed);
    expect(json).not.toHaveProperty('stream_options');
    expect(validateResponse(json)).toEqual([]);

    const frames = await readSse(await call('POST', '/responses', { ...request, stream: true }));
    for (const f of frames) expect(validateStreamEvent(f.data)).toEqual([]);
    const created = frames[0]?.data.response;
    const done = frames.at(-1)?.data.response as { id: string };
    expect(created).toMatchObject(echoed);
    expect(done).toMatchObject(echoed);

    const stored = await (await call('GET', `/responses/${done.id}`)).json();
    expect(stored).toMatchObject(echoed);
    expect(validateResponse(stored)).toEqual([]);
  });

  it("fills OpenAI's defaults for what the request left out", async () => {
    const { client } = makeRig();
    const r = await client.responses.create({ model: 'scripted', input: 'x' });
    expect(r).toMatchObject({
      instructions: null,
      service_tier: 'default',
      prompt_cache_key: null,
      safety_identifier: null,
      user: null,
      metadata: {},
      text: { format: { type: 'text' }, verbosity: 'medium' },
      temperature: 1,
      top_p: 1,
      top_logprobs: 0,
      truncation: 'disabled',
      max_output_tokens: null,
      parallel_tool_calls: true,
      tools: [],
      tool_choice: 'auto',
      reasoning: { effort: null, summary: null },
      previous_response_id: null,
      conversation: null,
      incomplete_details: null,
      error: null,
    });
    expect(r.max_tool_calls).toBeNull();
    // No access program was asked for: OpenAI's implicit Standard fallback is null.
    expect(r.access_programs).toBeNull();
    expect(r).not.toHaveProperty('image');
    expect(r).not.toHaveProperty('prompt_cache_options');
  });

  it('echoes a json_schema format with description null and strict filled in', async () => {
    const { client } = makeRig();
    const schema = { type: 'object', properties: {}, additionalProperties: false };
    const r = await client.responses.create({
      model: 'scripted',
      input: 'x',
      text: { format: { type: 'json_schema', name: 'empty', schema } },
    });
    expect(r.text?.format).toEqual({
      type: 'json_schema',
      name: 'empty',
      description: null,
      schema,
      strict: false,
    });
    expect(validateResponse(r)).toEqual([]);
  });
});
