/**
 * The request fields `openai` 7.x sends, through the typed SDK with no casts: each is either
 * accepted and echoed as a local model serves it, or refused with a 400 naming its param.
 */
import OpenAI from 'openai';
import type {
  FunctionTool,
  ResponseCreateParamsNonStreaming,
  ResponseInputItem,
} from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { makeRig, readSse } from '../helpers/server';
import { validateResponse, validateStreamEvent } from '../helpers/spec';

const lookup: FunctionTool = {
  type: 'function',
  name: 'lookup',
  strict: true,
  parameters: {
    type: 'object',
    properties: { q: { type: 'string' } },
    required: ['q'],
    additionalProperties: false,
  },
};

describe('openai 7 create fields, accepted and echoed', () => {
  it('echoes access_programs, image, prompt_cache_options, reasoning mode/context and fast tier', async () => {
    const { client, call } = makeRig();
    const earlier = await client.responses.create({ model: 'scripted', input: 'first' });
    const request = {
      model: 'scripted',
      input: 'echo me',
      access_programs: { cyber: 'standard' },
      image: { context_compression: 'auto' },
      prompt_cache_options: {
        mode: 'explicit',
        ttl: '12h',
        prewarm: false,
        comparison_response_id: earlier.id,
      },
      service_tier: 'fast',
      reasoning: { effort: 'low', mode: 'pro', context: 'auto' },
      safety_identifier: 's'.repeat(128),
      context_management: [{ type: 'compaction', compact_threshold: 2000 }],
      max_tool_calls: 2,
    } satisfies ResponseCreateParamsNonStreaming;
    const echoed = {
      access_programs: { cyber: 'standard' },
      // The effective policies: no image context compression, no prompt cache to diagnose.
      image: { context_compression: 'disabled' },
      prompt_cache_options: { mode: 'explicit', ttl: '12h', comparison_response_id: earlier.id },
      prompt_cache_diagnostics: { type: 'unavailable' },
      // OpenAI shows `fast` as the tier that served it.
      service_tier: 'priority',
      // One execution mode locally; earlier turns' reasoning is never shown again.
      reasoning: { effort: 'low', summary: null, mode: 'standard', context: 'current_turn' },
      safety_identifier: 's'.repeat(128),
      max_tool_calls: 2,
    };

    const r = await client.responses.create(request);
    expect(r.status).toBe('completed');
    expect(r).toMatchObject(echoed);
    expect(validateResponse(r)).toEqual([]);

    const frames = await readSse(await call('POST', '/responses', { ...request, stream: true }));
    for (const f of frames) expect(validateStreamEvent(f.data)).toEqual([]);
    expect(frames[0]?.data.response).toMatchObject(echoed);
    expect(frames.at(-1)?.data.response).toMatchObject(echoed);

    expect(await client.responses.retrieve(r.id)).toMatchObject(echoed);
  });

  it('echoes the function tool fields it was sent, and runs the tool', async () => {
    const { client } = makeRig();
    const tool = {
      ...lookup,
      async: false,
      allowed_callers: ['direct', 'programmatic'],
      defer_loading: false,
      output_schema: { type: 'object', properties: { hits: { type: 'integer' } } },
    } satisfies FunctionTool;
    const r = await client.responses.create({ model: 'scripted', input: 'find it', tools: [tool] });
    expect(r.tools).toEqual([{ ...tool, description: null }]);
    expect(r.output).toMatchObject([{ type: 'function_call', name: 'lookup', arguments: '{"q":"q"}' }]);
    expect(validateResponse(r)).toEqual([]);
  });

  it('pairs a function_call_output sent without call_id with the pending call of its name', async () => {
    const { client } = makeRig();
    const input: ResponseInputItem[] = [
      { role: 'user', content: 'two tools' },
      { type: 'function_call', call_id: 'call_a', name: 'lookup', arguments: '{}', async: false },
      {
        type: 'function_call',
        call_id: 'call_b',
        name: 'other',
        arguments: '{}',
        namespace: 'tools',
        caller: { type: 'direct' },
      },
      { type: 'function_call_output', call_id: 'call_a', output: 'A' },
      { type: 'function_call_output', name: 'other', namespace: 'tools', output: 'B' },
    ];
    const r = await client.responses.create({ model: 'scripted', input });
    // A namespaced call is shown to the model as `namespace.name` (issue 45), its output too.
    expect(r.output_text).toBe('Tool tools.other returned: B');

    const items = await client.responses.inputItems.list(r.id, { order: 'asc' });
    expect(items.data.slice(1)).toMatchObject([
      { type: 'function_call', call_id: 'call_a', async: false },
      { type: 'function_call', call_id: 'call_b', namespace: 'tools', caller: { type: 'direct' } },
      { type: 'function_call_output', call_id: 'call_a', output: 'A' },
      { type: 'function_call_output', name: 'other', namespace: 'tools', output: 'B' },
    ]);
    expect(items.data[4]).not.toHaveProperty('call_id');
  });

  it('takes prompt-cache breakpoints and file detail on content parts, and stores them', async () => {
    const { client } = makeRig();
    const breakpoint = { mode: 'explicit', ttl: '12h' } as const;
    const r = await client.responses.create({
      model: 'scripted',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'cached', prompt_cache_breakpoint: breakpoint },
            {
              type: 'input_file',
              filename: 'a.txt',
              file_data: `data:text/plain;base64,${Buffer.from('file text').toString('base64')}`,
              detail: 'low',
              prompt_cache_breakpoint: { mode: 'explicit' },
            },
          ],
        },
      ],
    });
    expect(r.status).toBe('completed');
    const items = await client.responses.inputItems.list(r.id);
    expect(items.data[0]).toMatchObject({
      type: 'message',
      content: [
        { type: 'input_text', text: 'cached', prompt_cache_breakpoint: breakpoint },
        { type: 'input_file', detail: 'low', prompt_cache_breakpoint: { mode: 'explicit' } },
      ],
    });
  });
});

/** Sends `body` through the SDK and returns what it threw. */
async function refusal(body: ResponseCreateParamsNonStreaming): Promise<unknown> {
  const { client } = makeRig();
  return client.responses.create(body).catch((e: unknown) => e);
}

describe('openai 7 create fields intab cannot honour, refused by param', () => {
  const base = { model: 'scripted', input: 'x' };
  const cases: { name: string; body: ResponseCreateParamsNonStreaming; param: string; code: string }[] = [
    {
      name: 'a Daybreak access program',
      body: { ...base, access_programs: { cyber: 'daybreak_red' } },
      param: 'access_programs.cyber',
      code: 'unsupported_value',
    },
    {
      name: 'required image context compression',
      body: { ...base, image: { context_compression: 'enabled' } },
      param: 'image.context_compression',
      code: 'unsupported_value',
    },
    {
      name: 'prompt cache prewarming',
      body: { ...base, prompt_cache_options: { prewarm: true } },
      param: 'prompt_cache_options.prewarm',
      code: 'unsupported_value',
    },
    {
      name: 'moderation',
      body: {
        ...base,
        moderation: { model: 'omni-moderation-latest', policy: { output: { mode: 'block' } } },
      },
      param: 'moderation',
      code: 'unsupported_value',
    },
    {
      name: "reasoning context 'all_turns'",
      body: { ...base, reasoning: { effort: 'low', context: 'all_turns' } },
      param: 'reasoning.context',
      code: 'unsupported_value',
    },
    {
      name: 'an async function tool',
      body: { ...base, tools: [{ ...lookup, async: true }] },
      param: 'tools[0].async',
      code: 'unsupported_value',
    },
    {
      name: 'a function tool only programs may call',
      body: { ...base, tools: [{ ...lookup, allowed_callers: ['programmatic'] }] },
      param: 'tools[0].allowed_callers',
      code: 'unsupported_value',
    },
    {
      name: 'a configuration_update item',
      body: { ...base, input: [{ type: 'configuration_update', reasoning: { effort: 'high' } }] },
      param: 'input[0].type',
      code: 'unsupported_value',
    },
    {
      name: 'a compaction_trigger item',
      body: {
        ...base,
        input: [
          { role: 'user', content: 'x' },
          { type: 'compaction_trigger', id: 'ct_1' },
        ],
      },
      param: 'input[1].type',
      code: 'unsupported_value',
    },
    {
      name: 'a tool call made by a program',
      body: {
        ...base,
        input: [
          {
            type: 'function_call',
            call_id: 'c',
            name: 'f',
            arguments: '{}',
            caller: { type: 'program', caller_id: 'prog_1' },
          },
        ],
      },
      param: 'input[0].caller.type',
      code: 'unsupported_value',
    },
    {
      name: 'a function_call_output no call is waiting for',
      body: { ...base, input: [{ type: 'function_call_output', name: 'lookup', output: 'x' }] },
      param: 'input[0].call_id',
      code: 'missing_required_parameter',
    },
    {
      name: 'a safety_identifier over 128 characters',
      body: { ...base, safety_identifier: 's'.repeat(129) },
      param: 'safety_identifier',
      code: 'string_above_max_length',
    },
  ];
  for (const c of cases) {
    it(`${c.name} → 400 ${c.param}`, async () => {
      const err = await refusal(c.body);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect(err).toMatchObject({ status: 400, param: c.param, code: c.code });
    });
  }

  it('validates the shapes of the new objects like any other field', async () => {
    const { call } = makeRig();
    const bad: [Record<string, unknown>, string, string][] = [
      [{ access_programs: { cyber: 'gold' } }, 'access_programs.cyber', 'invalid_value'],
      [{ access_programs: { medical: 'standard' } }, 'access_programs.medical', 'unknown_parameter'],
      [{ image: { context_compression: 'max' } }, 'image.context_compression', 'invalid_value'],
      [{ prompt_cache_options: { ttl: '1h' } }, 'prompt_cache_options.ttl', 'invalid_value'],
      [{ prompt_cache_options: { warm: true } }, 'prompt_cache_options.warm', 'unknown_parameter'],
      [{ context_management: [{ type: 'summarize' }] }, 'context_management[0].type', 'invalid_value'],
      [{ service_tier: 'turbo' }, 'service_tier', 'invalid_value'],
      [
        {
          input: [
            { role: 'user', content: [{ type: 'input_text', text: 'x', prompt_cache_breakpoint: {} }] },
          ],
        },
        'input[0].content[0].prompt_cache_breakpoint.mode',
        'missing_required_parameter',
      ],
    ];
    for (const [body, param, code] of bad) {
      const res = await call('POST', '/responses', { model: 'scripted', input: 'x', ...body });
      expect(res.status, param).toBe(400);
      expect((await res.json()).error, param).toMatchObject({ param, code });
    }
  });
});

describe('POST /v1/responses/compact with openai 7 fields', () => {
  it('echoes image and refuses what it refuses on create', async () => {
    const { client } = makeRig();
    const compacted = await client.responses.compact({
      model: 'scripted',
      input: 'fold me',
      image: { context_compression: 'disabled' },
      service_tier: 'fast',
    });
    expect(compacted.image).toEqual({ context_compression: 'disabled' });
    const err = await client.responses
      .compact({ model: 'scripted', input: 'x', image: { context_compression: 'enabled' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err).toMatchObject({ param: 'image.context_compression', code: 'unsupported_value' });
  });
});
