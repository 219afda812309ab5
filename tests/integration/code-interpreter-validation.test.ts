/**
 * `code_interpreter` request validation through the official `openai` SDK over the core: every
 * bad value of the tool is a 400 naming OpenAI's `param` (`network_policy: allowlist` refused by
 * name), good ones are echoed as sent, and the tool can be forced with `tool_choice`.
 */
import type { ResponseCodeInterpreterToolCall } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { InProcessPython } from '../helpers/python-runner-double';
import { makeRig } from '../helpers/server';

const TOOL = { type: 'code_interpreter' as const, container: { type: 'auto' as const } };
const rig = () => makeRig({ python: new InProcessPython() });
const calls = (output: { type: string }[]) =>
  output.filter((o): o is ResponseCodeInterpreterToolCall => o.type === 'code_interpreter_call');

describe('code_interpreter validation', () => {
  const bad: [string, unknown, string][] = [
    [
      'network_policy allowlist',
      {
        type: 'code_interpreter',
        container: { type: 'auto', network_policy: { type: 'allowlist', allowed_domains: ['x.com'] } },
      },
      'tools[0].container.network_policy',
    ],
    [
      'a memory_limit OpenAI does not offer',
      { type: 'code_interpreter', container: { type: 'auto', memory_limit: '2g' } },
      'tools[0].container.memory_limit',
    ],
    ['no container', { type: 'code_interpreter' }, 'tools[0].container'],
    [
      'a container type other than auto',
      { type: 'code_interpreter', container: { type: 'big' } },
      'tools[0].container',
    ],
    ['an unknown container id', { type: 'code_interpreter', container: 'cntr_nope' }, 'tools[0].container'],
    [
      'file_ids (not yet readable by the code)',
      { type: 'code_interpreter', container: { type: 'auto', file_ids: ['file-1'] } },
      'tools[0].container.file_ids',
    ],
    ['an unknown key', { type: 'code_interpreter', container: { type: 'auto' }, extra: 1 }, 'tools[0]'],
  ];
  for (const [name, tool, param] of bad)
    it(`refuses ${name} with a 400 on ${param}`, async () => {
      const { call } = rig();
      const res = await call('POST', '/responses', { model: 'scripted', input: 'hi', tools: [tool] });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { param: string; type: string } };
      expect(body.error).toMatchObject({
        type: 'invalid_request_error',
        param: expect.stringContaining(param),
      });
    });

  it('accepts memory_limit and network_policy disabled, and echoes the tool as sent', async () => {
    const { client } = rig();
    const tool = {
      type: 'code_interpreter' as const,
      container: {
        type: 'auto' as const,
        memory_limit: '4g' as const,
        network_policy: { type: 'disabled' as const },
      },
    };
    const r = await client.responses.create({
      model: 'scripted',
      input: 'hi',
      tools: [tool],
      tool_choice: 'none',
    });
    expect(r.tools).toEqual([tool]);
  });

  it('refuses a function named python beside it, a second one, and a server without a sandbox', async () => {
    const { call } = rig();
    const fn = { type: 'function', name: 'python', parameters: { type: 'object', properties: {} } };
    for (const [tools, param] of [
      [[TOOL, fn], 'tools[1].name'],
      [[TOOL, TOOL], 'tools[1].type'],
    ] as const) {
      const res = await call('POST', '/responses', { model: 'scripted', input: 'hi', tools });
      expect(((await res.json()) as { error: { param: string } }).error.param).toBe(param);
    }
    const bare = await makeRig().call('POST', '/responses', {
      model: 'scripted',
      input: 'hi',
      tools: [TOOL],
    });
    expect(bare.status).toBe(400);
    expect(((await bare.json()) as { error: { param: string } }).error.param).toBe('tools[0].type');
  });

  it('forces the tool with tool_choice {type: code_interpreter}', async () => {
    const { client } = rig();
    const r = await client.responses.create({
      model: 'scripted',
      input: '!python print(3)',
      tools: [TOOL],
      tool_choice: { type: 'code_interpreter' },
    });
    expect(calls(r.output)).toHaveLength(1);
  });
});
