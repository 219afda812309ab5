/**
 * Issue 45: the client tools' request checks. Each refusal is OpenAI's 400 naming the offending
 * `param`; what only OpenAI's platform runs (hosted shell containers, server tool search, hosted
 * tools such as web_search) says so.
 */
import { describe, expect, it } from 'vitest';
import { makeRig } from '../helpers/server';
import { expectError } from './create-helpers';

type Case = { name: string; body: Record<string, unknown>; param: string; code?: string; message?: RegExp };

const NS = {
  type: 'namespace',
  name: 'crm',
  description: 'CRM',
  tools: [{ type: 'function', name: 'get' }],
};

const bad: Case[] = [
  {
    name: 'a shell tool with a hosted container',
    body: { tools: [{ type: 'shell', environment: { type: 'container_auto' } }] },
    param: 'tools[0].environment.type',
    code: 'unsupported_value',
    message: /hosted shell containers run on OpenAI's platform/,
  },
  {
    name: 'a shell tool with an unknown key',
    body: { tools: [{ type: 'shell', timeout: 3 }] },
    param: 'tools[0].timeout',
  },
  {
    name: 'two apply_patch tools',
    body: { tools: [{ type: 'apply_patch' }, { type: 'apply_patch' }] },
    param: 'tools[1].type',
    code: 'invalid_value',
  },
  {
    name: 'an apply_patch tool only programs may call',
    body: { tools: [{ type: 'apply_patch', allowed_callers: ['programmatic'] }] },
    param: 'tools[0].allowed_callers',
    code: 'unsupported_value',
  },
  {
    name: 'a function named shell beside the shell tool',
    body: { tools: [{ type: 'shell' }, { type: 'function', name: 'shell' }] },
    param: 'tools[1].name',
    code: 'invalid_value',
  },
  {
    name: 'server-executed tool search',
    body: { tools: [{ type: 'tool_search' }] },
    param: 'tools[0].execution',
    code: 'unsupported_value',
    message: /execution: 'client'/,
  },
  {
    name: 'an empty namespace',
    body: { tools: [{ ...NS, tools: [] }] },
    param: 'tools[0].tools',
    code: 'empty_array',
  },
  {
    name: 'a namespace with a bad name',
    body: { tools: [{ ...NS, name: 'c.rm' }] },
    param: 'tools[0].name',
  },
  {
    name: 'a namespace holding a custom tool',
    body: { tools: [{ ...NS, tools: [{ type: 'custom', name: 'c' }] }] },
    param: 'tools[0].tools[0].type',
    code: 'unsupported_value',
  },
  {
    name: 'two functions of one name in a namespace',
    body: { tools: [{ ...NS, tools: [NS.tools[0], NS.tools[0]] }] },
    param: 'tools[0].tools[1].name',
  },
  {
    name: 'two namespaces of one name',
    body: { tools: [NS, NS] },
    param: 'tools[1].name',
  },
  {
    name: 'tool_choice shell without a shell tool',
    body: { tools: [{ type: 'apply_patch' }], tool_choice: { type: 'shell' } },
    param: 'tool_choice',
    code: 'invalid_value',
  },
  {
    name: 'allowed_tools naming a namespace not in tools',
    body: {
      tools: [NS],
      tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'namespace', name: 'other' }] },
    },
    param: 'tool_choice.tools[0]',
  },
  {
    name: 'web_search, a hosted tool',
    body: { tools: [{ type: 'web_search' }] },
    param: 'tools[0].type',
    code: 'unsupported_value',
    message: /not supported by intab/,
  },
  {
    name: 'an apply_patch_call_output with an unknown status',
    body: {
      input: [
        {
          type: 'apply_patch_call',
          call_id: 'c1',
          status: 'completed',
          operation: { type: 'delete_file', path: 'a' },
        },
        { type: 'apply_patch_call_output', call_id: 'c1', status: 'done' },
      ],
    },
    param: 'input[1].status',
  },
  {
    name: 'a shell_call_output whose outcome has no exit code',
    body: {
      input: [
        { type: 'shell_call', call_id: 'c1', action: { commands: ['ls'] } },
        {
          type: 'shell_call_output',
          call_id: 'c1',
          output: [{ stdout: '', stderr: '', outcome: { type: 'exit' } }],
        },
      ],
    },
    param: 'input[1].output[0].outcome.exit_code',
  },
  {
    name: 'a local_shell_call_output for no call',
    body: { input: [{ type: 'local_shell_call_output', id: 'call_x', output: 'x' }] },
    param: 'input',
  },
  {
    name: 'a shell call made by a program',
    body: {
      input: [
        {
          type: 'shell_call',
          call_id: 'c1',
          action: { commands: [] },
          caller: { type: 'program', caller_id: 'p' },
        },
      ],
    },
    param: 'input[0].caller.type',
    code: 'unsupported_value',
  },
];

describe('client tool validation', () => {
  for (const c of bad) {
    it(`refuses ${c.name}`, async () => {
      const { call } = makeRig();
      const res = await call('POST', '/responses', { model: 'scripted', input: 'hi', ...c.body });
      const message = await expectError(res, 400, c.param, c.code);
      if (c.message) expect(message).toMatch(c.message);
    });
  }

  it('accepts each client tool, and echoes it as sent', async () => {
    const { client } = makeRig();
    const tools = [
      {
        type: 'shell',
        environment: { type: 'local', skills: [{ name: 's', description: 'd', path: '/s' }] },
      },
      { type: 'apply_patch' },
      { type: 'local_shell' },
      { type: 'tool_search', execution: 'client', description: 'Find tools' },
      NS,
    ];
    const r = await client.responses.create({
      model: 'scripted',
      input: 'hi',
      tools,
      tool_choice: 'none',
    } as never);
    expect(r.status).toBe('completed');
    expect(r.tools).toEqual([...tools.slice(0, 4), { ...NS, tools: [{ ...NS.tools[0], strict: true }] }]);
  });

  it('forces a namespace function by its namespaced name', async () => {
    const { client } = makeRig();
    const r = await client.responses.create({
      model: 'scripted',
      input: 'hi',
      tools: [{ type: 'apply_patch' }, NS],
      tool_choice: { type: 'function', name: 'crm.get' },
    } as never);
    expect(r.output[0]).toMatchObject({ type: 'function_call', name: 'get', namespace: 'crm' });
  });
});
