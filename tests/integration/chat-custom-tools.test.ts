/**
 * Chat Completions' `custom` tools (issue 45) on the scripted model: a forced call comes back as a
 * `tool_calls[]` entry of type `custom` whose `input` matches the grammar, streamed as its id and
 * name then its input; sent back with its tool message, the model reads the result.
 */
import { describe, expect, it } from 'vitest';
import { makeRig } from '../helpers/server';

const phone = {
  type: 'custom' as const,
  custom: {
    name: 'phone',
    description: 'Dials a number.',
    format: { type: 'grammar' as const, grammar: { syntax: 'regex' as const, definition: '\\d{3}-\\d{4}' } },
  },
};

describe('chat completions custom tools', () => {
  it('forces a custom call whose input matches its grammar, and reads its result back', async () => {
    const { client } = makeRig();
    const done = await client.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'dial' }],
      tools: [phone],
      tool_choice: { type: 'custom', custom: { name: 'phone' } },
    });
    const call = done.choices[0]?.message.tool_calls?.[0];
    expect(call).toMatchObject({ type: 'custom', custom: { name: 'phone' } });
    const input = (call as { custom: { input: string } }).custom.input;
    expect(input).toMatch(/^\d{3}-\d{4}$/);
    expect(done.choices[0]?.finish_reason).toBe('tool_calls');

    const next = await client.chat.completions.create({
      model: 'scripted',
      messages: [
        { role: 'user', content: 'dial' },
        { role: 'assistant', content: null, tool_calls: [call as never] },
        { role: 'tool', tool_call_id: (call as { id: string }).id, content: 'dialled' },
      ],
      tools: [phone],
    });
    expect(next.choices[0]?.message.content).toBe('Tool phone returned: dialled');
  });

  it('streams the call as its id, type and name, then its input', async () => {
    const { call } = makeRig();
    const res = await call('POST', '/chat/completions', {
      model: 'scripted',
      stream: true,
      messages: [{ role: 'user', content: '!custom phone 555-1234' }],
      tools: [phone],
    });
    const frames = (await res.text())
      .split('\n\n')
      .map((f) => f.replace(/^data: /, ''))
      .filter((f) => f.startsWith('{'));
    const deltas = frames
      .map(
        (f) =>
          (JSON.parse(f) as { choices?: Array<{ delta: { tool_calls?: unknown[] } }> }).choices?.[0]?.delta,
      )
      .flatMap((d) => d?.tool_calls ?? []);
    expect(deltas).toEqual([
      { index: 0, id: expect.stringMatching(/^call_/), type: 'custom', custom: { name: 'phone', input: '' } },
      { index: 0, custom: { input: '555-1234' } },
    ]);
  });

  it('refuses a custom choice naming no tool, and an allowed_tools entry naming none', async () => {
    const { call } = makeRig();
    const body = (tool_choice: unknown) => ({
      model: 'scripted',
      messages: [{ role: 'user', content: 'x' }],
      tools: [phone],
      tool_choice,
    });
    const a = await call('POST', '/chat/completions', body({ type: 'custom', custom: { name: 'nope' } }));
    expect(a.status).toBe(400);
    expect(((await a.json()) as { error: { param: string } }).error.param).toBe('tool_choice');
    const b = await call(
      'POST',
      '/chat/completions',
      body({
        type: 'allowed_tools',
        allowed_tools: { mode: 'required', tools: [{ type: 'custom', custom: {} }] },
      }),
    );
    expect(((await b.json()) as { error: { param: string } }).error.param).toBe(
      'tool_choice.allowed_tools.tools[0].custom.name',
    );
  });
});
