/**
 * `custom` tools (issue 45) on the scripted model through the `openai` SDK: the tool and choice
 * validated as OpenAI does, a `custom_tool_call` item streamed in OpenAI's event order (checked by
 * the SDK's stream accumulator), its output sent back as history, and the items stored and replayed
 * unchanged.
 */
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { makeRig } from '../helpers/server';

const regexTool = {
  type: 'custom' as const,
  name: 'phone',
  description: 'Dials a number.',
  format: { type: 'grammar' as const, syntax: 'regex' as const, definition: '\\d{3}-\\d{4}' },
};
const larkTool = {
  type: 'custom' as const,
  name: 'calc',
  format: {
    type: 'grammar' as const,
    syntax: 'lark' as const,
    definition: 'start: NUM (OP NUM)*\nOP: "+" | "-"\nNUM: /[0-9]+/',
  },
};

async function error(res: Response) {
  expect(res.status).toBe(400);
  return ((await res.json()) as { error: Record<string, unknown> }).error;
}

describe('custom tool validation', () => {
  it('refuses a grammar the subset cannot express, naming the construct and the definition', async () => {
    const { call } = makeRig();
    const body = (definition: string, syntax = 'lark') => ({
      model: 'scripted',
      input: 'x',
      tools: [{ type: 'custom', name: 't', format: { type: 'grammar', syntax, definition } }],
    });
    const rec = await error(await call('POST', '/responses', body('start: a\na: "x" a')));
    expect(rec).toMatchObject({
      param: 'tools[0].format.definition',
      code: 'invalid_grammar',
      type: 'invalid_request_error',
    });
    expect(rec.message).toMatch(/'a' is recursive/);
    expect((await error(await call('POST', '/responses', body('%ignore " "\nstart: "a"')))).message).toMatch(
      /%ignore/,
    );
    expect((await error(await call('POST', '/responses', body('(?=a)b', 'regex')))).message).toMatch(
      /lookarounds/,
    );
    expect((await error(await call('POST', '/responses', body('a{5000}', 'regex')))).message).toMatch(
      /above 1000/,
    );
    const syntax = await error(await call('POST', '/responses', body('a', 'ebnf')));
    expect(syntax.param).toBe('tools[0].format.syntax');
  });

  it('checks the name, duplicates, and the forced choice as for functions', async () => {
    const { call } = makeRig();
    const bad = await error(
      await call('POST', '/responses', {
        model: 'scripted',
        input: 'x',
        tools: [{ type: 'custom', name: 'a b' }],
      }),
    );
    expect(bad).toMatchObject({ param: 'tools[0].name' });
    const dup = await error(
      await call('POST', '/responses', {
        model: 'scripted',
        input: 'x',
        tools: [
          { type: 'function', name: 'a' },
          { type: 'custom', name: 'a' },
        ],
      }),
    );
    expect(dup).toMatchObject({ param: 'tools[1].name', code: 'invalid_value' });
    const missing = await error(
      await call('POST', '/responses', {
        model: 'scripted',
        input: 'x',
        tools: [regexTool],
        tool_choice: { type: 'custom', name: 'nope' },
      }),
    );
    expect(missing).toMatchObject({
      param: 'tool_choice',
      message: "Tool choice 'nope' not found in 'tools' parameter.",
    });
    const fnChoice = await error(
      await call('POST', '/responses', {
        model: 'scripted',
        input: 'x',
        tools: [regexTool],
        tool_choice: { type: 'function', name: 'phone' },
      }),
    );
    expect(fnChoice.param).toBe('tool_choice');
    const allowed = await error(
      await call('POST', '/responses', {
        model: 'scripted',
        input: 'x',
        tools: [regexTool],
        tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'custom', name: 'other' }] },
      }),
    );
    expect(allowed.param).toBe('tool_choice.tools[0]');
  });
});

describe('custom tool calls on scripted', () => {
  it('streams a forced call in OpenAI order; its input matches the grammar; the output round-trips', async () => {
    const { client } = makeRig();
    const stream = client.responses.stream({
      model: 'scripted',
      input: 'call it',
      tools: [regexTool, larkTool],
      tool_choice: { type: 'custom', name: 'phone' },
    });
    const types: string[] = [];
    for await (const e of stream as AsyncIterable<ResponseStreamEvent>) types.push(e.type);
    const final = await stream.finalResponse();
    const calls = final.output.filter((o) => o.type === 'custom_tool_call');
    expect(calls).toHaveLength(1);
    const item = calls[0] as unknown as {
      id: string;
      call_id: string;
      name: string;
      input: string;
      status: string;
    };
    expect(item).toMatchObject({ type: 'custom_tool_call', name: 'phone', status: 'completed' });
    expect(item.id).toMatch(/^ctc_/);
    expect(item.input).toMatch(/^\d{3}-\d{4}$/);
    expect(
      types.filter((t) => !t.startsWith('response.') || t.includes('output_item') || t.includes('custom')),
    ).toEqual([
      'response.output_item.added',
      'response.custom_tool_call_input.delta',
      'response.custom_tool_call_input.done',
      'response.output_item.done',
    ]);

    // The output goes back by call_id; the model reads it as the tool's result.
    const next = await client.responses.create({
      model: 'scripted',
      previous_response_id: final.id,
      input: [{ type: 'custom_tool_call_output', call_id: item.call_id, output: 'dialled' }],
      tools: [regexTool],
    });
    expect(next.output_text).toBe('Tool phone returned: dialled');
    const items = await client.responses.inputItems.list(next.id);
    const kinds = items.data.map((i) => i.type);
    expect(kinds).toContain('custom_tool_call_output');
  });

  it('!custom writes the given input; a stored response replays the same items and events', async () => {
    const { client } = makeRig();
    const r = await client.responses.create({
      model: 'scripted',
      input: '!custom calc 1+22-3',
      tools: [larkTool],
    });
    const call = r.output.find((o) => o.type === 'custom_tool_call');
    expect(call).toMatchObject({ name: 'calc', input: '1+22-3' });
    const again = await client.responses.retrieve(r.id);
    expect(again.output).toEqual(r.output);
    const replay = await client.responses.retrieve(r.id, { stream: true });
    const events: ResponseStreamEvent[] = [];
    for await (const e of replay) events.push(e);
    const done = events.find((e) => e.type === 'response.custom_tool_call_input.done');
    expect(done).toMatchObject({ input: '1+22-3', item_id: (call as { id: string }).id });
  });

  it('keeps the call and its output in a conversation as they were (the docs example)', async () => {
    const { client } = makeRig();
    const conversation = await client.conversations.create({});
    const response = await client.responses.create({
      model: 'scripted',
      conversation: conversation.id,
      input: 'Add 12 and 30.',
      tools: [larkTool],
      tool_choice: { type: 'custom', name: 'calc' },
    });
    const call = response.output.find((o) => o.type === 'custom_tool_call');
    expect(call?.input).toMatch(/^[0-9]+(?:[+-][0-9]+)*$/);
    const next = await client.responses.create({
      model: 'scripted',
      conversation: conversation.id,
      input: [{ type: 'custom_tool_call_output', call_id: call?.call_id as string, output: '42' }],
      tools: response.tools,
    });
    expect(next.output_text).toBe('Tool calc returned: 42');
    const items = (await client.conversations.items.list(conversation.id, { order: 'asc' })).data;
    expect(items.find((i) => i.type === 'custom_tool_call')).toEqual(call);
    expect(items.find((i) => i.type === 'custom_tool_call_output')).toMatchObject({
      call_id: call?.call_id,
      output: '42',
    });
  });

  it('takes a custom call and its output as stateless input, shown to the model as its call and result', async () => {
    const { client } = makeRig();
    const r = await client.responses.create({
      model: 'scripted',
      input: [
        { role: 'user', content: 'dial' },
        { type: 'custom_tool_call', call_id: 'call_1', name: 'phone', input: '555-1234' },
        { type: 'custom_tool_call_output', call_id: 'call_1', output: 'ok' },
      ],
      tools: [regexTool],
    });
    expect(r.output_text).toBe('Tool phone returned: ok');
    const orphan = client.responses.create({
      model: 'scripted',
      input: [{ type: 'custom_tool_call_output', call_id: 'call_9', output: 'ok' }],
    });
    await expect(orphan).rejects.toMatchObject({ status: 400 });
  });
});
