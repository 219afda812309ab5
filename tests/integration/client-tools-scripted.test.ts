/**
 * Issue 45's client tools on the `scripted` model: `shell` (local), `apply_patch`, `local_shell`,
 * a `namespace` of functions and a client `tool_search`. Each call comes out as its typed item,
 * streams in OpenAI's order (read by the `openai` SDK's own accumulator, which checks shell command
 * events against the item), its output goes back in as an input item that the next turn shows the
 * model as the tool's result, and the items are stored, listed and replayed as they were.
 */
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { ScriptedEngine } from '../../src/engine/scripted/scripted-engine';
import type { Engine, GenerateRequest } from '../../src/engine/types';
import { makeRig, readSse } from '../helpers/server';

/** The scripted engine, keeping every request the core made of it. */
function watchedEngine(): { engine: Engine; requests: GenerateRequest[] } {
  const base = new ScriptedEngine();
  const requests: GenerateRequest[] = [];
  const engine: Engine = {
    models: () => base.models(),
    load: (id) => base.load(id),
    countTokens: (id, m, t) => base.countTokens(id, m, t),
    preflight: (id, r) => base.preflight(id, r),
    generate: (r, s) => {
      requests.push(structuredClone(r));
      return base.generate(r, s);
    },
  };
  return { engine, requests };
}

/** Streams `body` through the SDK's helper: every event type in order, and its accumulated response. */
async function sdkStream(client: OpenAI, body: Record<string, unknown>) {
  const stream = client.responses.stream(body as never);
  const types: string[] = [];
  for await (const e of stream) types.push(e.type);
  return { types, final: await stream.finalResponse() };
}

const SHELL = { type: 'shell', environment: { type: 'local' } };

describe('shell on scripted', () => {
  it('streams a shell_call with one added/delta/done per command, as the SDK accumulates it', async () => {
    const { client } = makeRig();
    const { types, final } = await sdkStream(client, {
      model: 'scripted',
      input: '!shell ls -la\n!shell cat README.md',
      tools: [SHELL],
      tool_choice: { type: 'shell' },
    });
    const command = ['added', 'delta', 'done'].map((s) => `response.shell_call_command.${s}`);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      ...command,
      ...command,
      'response.output_item.done',
      'response.completed',
    ]);
    expect(final.output).toEqual([
      {
        type: 'shell_call',
        id: expect.stringMatching(/^sh_/),
        call_id: expect.stringMatching(/^call_/),
        action: { commands: ['ls -la', 'cat README.md'], timeout_ms: null, max_output_length: null },
        environment: { type: 'local' },
        status: 'completed',
      },
    ]);
    expect(final.tool_choice).toEqual({ type: 'shell' });
    expect(final.tools).toEqual([SHELL]);
    const stored = await client.responses.retrieve(final.id);
    expect(stored.output).toEqual(final.output);
  });

  it('shows the model shell(commands) and the output as its result; items round-trip unchanged', async () => {
    const { engine, requests } = watchedEngine();
    const { client } = makeRig({ engine });
    const first = await client.responses.create({
      model: 'scripted',
      input: '!shell echo hi',
      tools: [SHELL],
    } as never);
    const call = first.output[0] as OpenAI.Responses.ResponseFunctionShellToolCall;
    expect(requests[0]?.tools.map((t) => t.name)).toEqual(['shell']);
    expect(requests[0]?.tools[0]?.parameters).toMatchObject({ required: ['commands'] });
    const output = {
      type: 'shell_call_output',
      call_id: call.call_id,
      output: [{ stdout: 'hi\n', stderr: '', outcome: { type: 'exit', exit_code: 0 } }],
    };
    const second = await client.responses.create({
      model: 'scripted',
      previous_response_id: first.id,
      input: [output],
      tools: [SHELL],
    } as never);
    expect(second.output_text).toBe('Tool shell returned: command 1: exit code 0\nstdout:\nhi');
    const seen = requests[1]?.messages ?? [];
    expect(seen.at(-2)).toMatchObject({
      role: 'assistant',
      tool_calls: [{ id: call.call_id, function: { name: 'shell', arguments: '{"commands":["echo hi"]}' } }],
    });
    expect(seen.at(-1)).toMatchObject({ role: 'tool', tool_call_id: call.call_id, name: 'shell' });
    const items = await client.responses.inputItems.list(second.id, { order: 'asc' });
    const listed = items.data.find((i) => i.type === 'shell_call_output');
    expect(listed).toEqual({
      ...output,
      id: expect.stringMatching(/^sho_/),
      status: 'completed',
      max_output_length: null,
    });
    // Stateless: the call and the listed output sent back as they came give the same turn.
    const again = await client.responses.create({
      model: 'scripted',
      store: false,
      input: [{ role: 'user', content: '!shell echo hi' }, call, listed],
      tools: [SHELL],
    } as never);
    expect(again.output_text).toBe(second.output_text);
  });

  it('refuses an output for a call that is not in the history', async () => {
    const { call } = makeRig();
    const res = await call('POST', '/responses', {
      model: 'scripted',
      input: [
        {
          type: 'shell_call_output',
          call_id: 'call_nope',
          output: [{ stdout: '', stderr: '', outcome: { type: 'timeout' } }],
        },
      ],
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ param: 'input', type: 'invalid_request_error' });
  });
});

describe('apply_patch on scripted', () => {
  it('returns an apply_patch_call with the V4A diff, and its output comes back as the result', async () => {
    const { client } = makeRig();
    const { types, final } = await sdkStream(client, {
      model: 'scripted',
      input: '!apply_patch create_file notes/a.txt\n+hello\n+world',
      tools: [{ type: 'apply_patch' }],
      tool_choice: { type: 'apply_patch' },
    });
    expect(types.slice(2, -1)).toEqual(['response.output_item.added', 'response.output_item.done']);
    const call = final.output[0] as OpenAI.Responses.ResponseApplyPatchToolCall;
    expect(call).toEqual({
      type: 'apply_patch_call',
      id: expect.stringMatching(/^apc_/),
      call_id: expect.stringMatching(/^call_/),
      operation: { type: 'create_file', path: 'notes/a.txt', diff: '+hello\n+world\n' },
      status: 'completed',
    });
    const next = await client.responses.create({
      model: 'scripted',
      previous_response_id: final.id,
      input: [
        { type: 'apply_patch_call_output', call_id: call.call_id, status: 'completed', output: 'Created' },
      ],
      tools: [{ type: 'apply_patch' }],
    } as never);
    expect(next.output_text).toBe('Tool apply_patch returned: completed: Created');
  });

  it('deletes with delete_file (no diff) and updates with update_file', async () => {
    const { client } = makeRig();
    const del = await client.responses.create({
      model: 'scripted',
      input: '!apply_patch delete_file old.txt',
      tools: [{ type: 'apply_patch' }],
    } as never);
    expect((del.output[0] as OpenAI.Responses.ResponseApplyPatchToolCall).operation).toEqual({
      type: 'delete_file',
      path: 'old.txt',
    });
    const upd = await client.responses.create({
      model: 'scripted',
      input: '!apply_patch update_file a.py\n@@ def f():\n-    return 1\n+    return 2',
      tools: [{ type: 'apply_patch' }],
    } as never);
    expect((upd.output[0] as OpenAI.Responses.ResponseApplyPatchToolCall).operation).toEqual({
      type: 'update_file',
      path: 'a.py',
      diff: '@@ def f():\n-    return 1\n+    return 2\n',
    });
  });
});

describe('local_shell, namespace and client tool_search on scripted', () => {
  it('local_shell: a local_shell_call, and its output (by the call id) as the result', async () => {
    const { client } = makeRig();
    const r = await client.responses.create({
      model: 'scripted',
      input: '!local_shell git status --short',
      tools: [{ type: 'local_shell' }],
      tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'local_shell' }] },
    } as never);
    const call = r.output[0] as Extract<OpenAI.Responses.ResponseOutputItem, { type: 'local_shell_call' }>;
    expect(call).toEqual({
      type: 'local_shell_call',
      id: expect.stringMatching(/^lsh_/),
      call_id: expect.stringMatching(/^call_/),
      action: {
        type: 'exec',
        command: ['git', 'status', '--short'],
        env: {},
        timeout_ms: null,
        user: null,
        working_directory: null,
      },
      status: 'completed',
    });
    const next = await client.responses.create({
      model: 'scripted',
      previous_response_id: r.id,
      input: [{ type: 'local_shell_call_output', id: call.call_id, output: 'M a.txt' }],
      tools: [{ type: 'local_shell' }],
    } as never);
    expect(next.output_text).toBe('Tool local_shell returned: M a.txt');
  });

  it('namespace: the model calls crm.get_customer, the item is get_customer in namespace crm', async () => {
    const { engine, requests } = watchedEngine();
    const { client } = makeRig({ engine });
    const crm = {
      type: 'namespace',
      name: 'crm',
      description: 'Customer records',
      tools: [
        {
          type: 'function',
          name: 'get_customer',
          description: 'Look a customer up',
          parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        },
      ],
    };
    const { types, final } = await sdkStream(client, {
      model: 'scripted',
      input: '!call crm.get_customer {"id":"7"}',
      tools: [crm],
    });
    expect(requests[0]?.tools[0]).toMatchObject({
      name: 'crm.get_customer',
      description: '(crm: Customer records) Look a customer up',
    });
    expect(types.slice(2, -1)).toEqual([
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
    ]);
    const call = final.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call).toMatchObject({
      type: 'function_call',
      name: 'get_customer',
      namespace: 'crm',
      arguments: '{"id":"7"}',
    });
    expect(final.tools[0]).toMatchObject({ type: 'namespace', name: 'crm' });
    const next = await client.responses.create({
      model: 'scripted',
      previous_response_id: final.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, namespace: 'crm', output: 'Ada' }],
      tools: [crm],
    } as never);
    expect(next.output_text).toBe('Tool crm.get_customer returned: Ada');
  });

  it('tool_search (client): a tool_search_call with its arguments; the output lists the tools found', async () => {
    const { client } = makeRig();
    const r = await client.responses.create({
      model: 'scripted',
      input: '!tool_search weather',
      tools: [{ type: 'tool_search', execution: 'client' }],
    } as never);
    const call = r.output[0] as OpenAI.Responses.ResponseToolSearchCall;
    expect(call).toEqual({
      type: 'tool_search_call',
      id: expect.stringMatching(/^tsc_/),
      call_id: expect.stringMatching(/^call_/),
      arguments: { query: 'weather' },
      execution: 'client',
      status: 'completed',
    });
    const found = {
      type: 'tool_search_output',
      call_id: call.call_id,
      execution: 'client',
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          description: 'Weather by city',
          parameters: null,
          strict: true,
        },
      ],
    };
    const next = await client.responses.create({
      model: 'scripted',
      previous_response_id: r.id,
      input: [found],
      tools: [{ type: 'tool_search', execution: 'client' }],
    } as never);
    expect(next.output_text).toBe('Tool tool_search returned: Tools loaded:\nget_weather: Weather by city');
  });
});

describe('replay of stored client tool calls', () => {
  for (const [name, input, tools] of [
    ['shell', '!shell ls\n!shell pwd', [SHELL]],
    ['apply_patch', '!apply_patch create_file a.txt\n+x', [{ type: 'apply_patch' }]],
    ['local_shell', '!local_shell ls -l', [{ type: 'local_shell' }]],
    ['tool_search', '!tool_search maps', [{ type: 'tool_search', execution: 'client' }]],
    [
      'a namespaced function',
      '!call ns.f {}',
      [{ type: 'namespace', name: 'ns', description: 'N', tools: [{ type: 'function', name: 'f' }] }],
    ],
  ] as const) {
    it(`rebuilds a ${name} call's stream with the live events and ids`, async () => {
      const { call } = makeRig();
      const live = await readSse(
        await call('POST', '/responses', { model: 'scripted', input, tools, stream: true }),
      );
      const id = (live.at(-1)?.data.response as { id?: string } | undefined)?.id;
      const replay = await readSse(await call('GET', `/responses/${id}?stream=true`));
      const strip = (frames: typeof live) => frames.map((f) => f.data);
      expect(strip(replay)).toEqual(strip(live));
    });
  }
});
