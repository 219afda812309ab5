/**
 * The create surface, output side: logprobs, reasoning summaries and encrypted content, and
 * tool-call limits. Every event and body is checked against the spec; streams also go through the
 * SDK's strict accumulator.
 */
import type {
  ResponseFunctionToolCall,
  ResponseOutputMessage,
  ResponseOutputText,
  ResponseReasoningItem,
} from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import type { EngineChunk } from '../../src/engine/types';
import { makeRig } from '../helpers/server';
import { validateResponse } from '../helpers/spec';
import { fakeEngine, streamFrames as stream } from './create-helpers';

const tool = (name: string) => ({
  type: 'function' as const,
  name,
  strict: true,
  parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
});

describe('logprobs', () => {
  it('puts deterministic logprobs on deltas, done and the part when include asks', async () => {
    const frames = await stream({
      model: 'scripted',
      input: 'hi there',
      include: ['message.output_text.logprobs'],
      top_logprobs: 2,
    });
    const deltas = frames.filter((f) => f.type === 'response.output_text.delta');
    expect(deltas.map((d) => d.logprobs)).toEqual(
      ['You', ' said:', ' hi', ' there'].map((token) => [
        {
          token,
          logprob: 0,
          bytes: [...Buffer.from(token)],
          top_logprobs: [
            { token, logprob: 0, bytes: [...Buffer.from(token)] },
            { token: `${token.startsWith(' ') ? ' ' : ''}alt1`, logprob: -1, bytes: expect.any(Array) },
          ],
        },
      ]),
    );
    const done = frames.find((f) => f.type === 'response.output_text.done');
    expect(done?.logprobs).toHaveLength(4);
    const final = frames.at(-1)?.response as { output: ResponseOutputMessage[]; top_logprobs: number };
    const part = final.output[0]?.content[0] as ResponseOutputText;
    expect(part.logprobs?.map((l) => l.token)).toEqual(['You', ' said:', ' hi', ' there']);
    expect(final.top_logprobs).toBe(2);
    expect(validateResponse(final)).toEqual([]);
  });

  it('sends empty logprobs without the include, even with top_logprobs', async () => {
    const { client } = makeRig();
    const r = await client.responses.create({ model: 'scripted', input: 'x', top_logprobs: 3 });
    expect((r.output[0] as ResponseOutputMessage).content[0]).toMatchObject({ logprobs: [] });
    const frames = await stream({ model: 'scripted', input: 'x', top_logprobs: 3 });
    for (const f of frames.filter((f) => f.type === 'response.output_text.delta'))
      expect(f.logprobs).toEqual([]);
  });
});

describe('reasoning', () => {
  it('streams a summary part after the reasoning text when reasoning.summary asks', async () => {
    const { client } = makeRig();
    const s = client.responses.stream({
      model: 'scripted',
      input: 'why not',
      reasoning: { effort: 'high', summary: 'auto' },
    });
    const types: string[] = [];
    s.on('event', (e) => types.push(e.type));
    const final = await s.finalResponse();
    const reasoningEvents = types.slice(2, types.indexOf('response.output_item.done') + 1);
    expect(reasoningEvents).toEqual([
      'response.output_item.added',
      'response.content_part.added',
      ...Array(4).fill('response.reasoning_text.delta'),
      'response.reasoning_text.done',
      'response.content_part.done',
      'response.reasoning_summary_part.added',
      ...Array(4).fill('response.reasoning_summary_text.delta'),
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
    ]);
    const item = final.output[0] as ResponseReasoningItem;
    expect(item.summary).toEqual([{ type: 'summary_text', text: 'Thinking about: why not' }]);
    expect(item.content).toEqual([{ type: 'reasoning_text', text: 'Thinking about: why not' }]);
    expect(final.reasoning).toEqual({ effort: 'high', summary: 'auto' });
    expect(final.usage?.output_tokens_details.reasoning_tokens).toBe(4);
    expect(final.usage?.output_tokens).toBe(4 + 4);
    expect(validateResponse(await client.responses.retrieve(final.id))).toEqual([]);
  });

  it('sends no summary events without reasoning.summary', async () => {
    const frames = await stream({ model: 'scripted', input: 'q', reasoning: { effort: 'low' } });
    expect(frames.some((f) => f.type.startsWith('response.reasoning_summary'))).toBe(false);
    const last = frames.at(-1) as unknown as { response: { output: ResponseReasoningItem[] } };
    const item = last.response.output[0];
    expect(item?.summary).toEqual([]);
    expect(item?.encrypted_content).toBeUndefined();
  });

  it('gives encrypted_content with the include, and reads it back as input', async () => {
    const { client, call } = makeRig();
    const r = await client.responses.create({
      model: 'scripted',
      input: 'secret',
      store: false,
      reasoning: { effort: 'medium' },
      include: ['reasoning.encrypted_content'],
    });
    const item = r.output[0] as ResponseReasoningItem;
    expect(item.encrypted_content).toMatch(/^intab\.rs\.v1\./);
    expect(validateResponse(r)).toEqual([]);
    // Stateless reuse: the item comes back with its text stripped, and intab restores it.
    const next = await client.responses.create({
      model: 'scripted',
      input: [
        { role: 'user', content: 'secret' },
        { type: 'reasoning', id: item.id, summary: [], encrypted_content: item.encrypted_content },
        { role: 'user', content: 'again' },
      ],
    });
    const items = await client.responses.inputItems.list(next.id);
    const restored = items.data.find((i) => i.type === 'reasoning') as ResponseReasoningItem;
    expect(restored.content).toEqual([{ type: 'reasoning_text', text: 'Thinking about: secret' }]);

    const res = await call('POST', '/responses', {
      model: 'scripted',
      input: [{ type: 'reasoning', id: 'rs_x', summary: [], encrypted_content: 'gAAAAforeign' }],
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({
      param: 'input[0].encrypted_content',
      code: 'invalid_encrypted_content',
    });
  });
});

describe('tool-call limits', () => {
  it('parallel_tool_calls:false caps the scripted model; max_tool_calls counts no function call', async () => {
    const { client } = makeRig();
    const tools = [tool('a'), tool('b'), tool('c')];
    const all = await client.responses.create({ model: 'scripted', input: '!all-tools', tools });
    expect(all.output).toHaveLength(3);
    // The SDK's doc comment: "the maximum number of total calls to built-in tools" (openai 7.57).
    const capped = await client.responses.create({
      model: 'scripted',
      input: '!all-tools',
      tools,
      max_tool_calls: 2,
    });
    expect(capped.output.map((o) => (o as ResponseFunctionToolCall).name)).toEqual(['a', 'b', 'c']);
    expect(capped.max_tool_calls).toBe(2);
    const single = await client.responses.create({
      model: 'scripted',
      input: '!all-tools',
      tools,
      parallel_tool_calls: false,
    });
    expect(single.output.map((o) => (o as ResponseFunctionToolCall).name)).toEqual(['a']);
    expect(single.parallel_tool_calls).toBe(false);
  });

  it('drops function calls past parallel_tool_calls:false even when the engine makes them, not past max_tool_calls', async () => {
    const calls: EngineChunk[] = ['a', 'b', 'c'].map((name) => ({
      type: 'tool_call',
      name,
      arguments: '{}',
    }));
    const rig = makeRig({ engine: fakeEngine(calls) });
    const tools = [tool('a'), tool('b'), tool('c')];
    const frames = await stream({ model: 'scripted', input: 'x', tools, max_tool_calls: 1 }, rig);
    const added = frames.filter((f) => f.type === 'response.output_item.added');
    expect(added).toHaveLength(3);
    const r = await rig.client.responses.create({
      model: 'scripted',
      input: 'x',
      tools,
      parallel_tool_calls: false,
    });
    expect(r.output).toHaveLength(1);
  });
});
