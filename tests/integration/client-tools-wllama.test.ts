/**
 * Issue 45's client tools on the real wllama engine's code (the tiny GGUF's Llama 3 tool format,
 * its GBNF request grammar, its call parser) over a fake llama.cpp that writes, seed by seed, a
 * random walk of the grammar it was handed: what random weights write when the sampler holds it.
 * Every forced call then parses into a well-formed typed item, and the grammar (read by an
 * independent matcher) refuses a call that breaks the tool's fixed schema.
 */
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { WllamaEngine } from '../../src/engine/wllama';
import { gbnfMatches } from '../helpers/gbnf-match';
import { sampleGbnf } from '../helpers/gbnf-sample';
import { makeRig } from '../helpers/server';
import { tinyGguf } from '../helpers/tiny-gguf';
import { FakeWllama } from '../helpers/wllama-fakes';

const SEEDS = Array.from({ length: 12 }, (_, i) => i + 1);

/** A fake llama.cpp that writes a seeded walk of the request's grammar, a character per token. */
class GrammarWalkFake extends FakeWllama {
  written: string[] = [];
  constructor(private readonly seed: number) {
    super();
  }
  override async createChatCompletion(options: Parameters<FakeWllama['createChatCompletion']>[0]) {
    const { onData, abortSignal: _, ...params } = options;
    this.calls.push({ params, afterAbort: 0 });
    const grammar = (params as { grammar?: string }).grammar;
    if (!grammar) throw new Error('the engine sent no grammar for a forced call');
    const reply = sampleGbnf(grammar, this.seed);
    this.written.push(reply);
    const chunk = (delta: { content?: string }, finish: 'stop' | null = null) =>
      ({ choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] }) as never;
    for (const ch of reply) onData(chunk({ content: ch }));
    onData(chunk({}, 'stop'));
    onData({ choices: [], usage: { prompt_tokens: 10, completion_tokens: reply.length } } as never);
  }
}

async function forced(seed: number, tools: unknown[], toolChoice: unknown) {
  const fake = new GrammarWalkFake(seed);
  const engine = new WllamaEngine({
    models: [{ id: 'm', files: [tinyGguf()] }],
    hasWebGpuF16: async () => false,
    createWllama: () => fake,
  });
  const { client } = makeRig({ engine });
  const r = await client.responses.create({
    model: 'm',
    input: 'Do it.',
    tools,
    tool_choice: toolChoice,
  } as never);
  const grammar = (fake.calls[0]?.params as { grammar?: string } | undefined)?.grammar ?? '';
  expect(gbnfMatches(grammar, fake.written[0] as string)).toBe(true);
  expect(r.error).toBeNull();
  expect(r.output.length).toBeGreaterThan(0);
  return { output: r.output, grammar };
}

const isText = (v: unknown) => typeof v === 'string';
const isIntOrNull = (v: unknown) => v === null || (Number.isInteger(v) && (v as number) >= 1);

describe('client tools on wllama: forced calls from random weights are well-formed items', () => {
  it('shell: every walk is a shell_call with non-empty commands', async () => {
    for (const seed of SEEDS) {
      const { output, grammar } = await forced(seed, [{ type: 'shell' }], { type: 'shell' });
      for (const item of output as OpenAI.Responses.ResponseFunctionShellToolCall[]) {
        expect(item.type).toBe('shell_call');
        expect(item.action.commands.length).toBeGreaterThan(0);
        expect(item.action.commands.every((c) => isText(c) && c.length > 0)).toBe(true);
        expect(isIntOrNull(item.action.timeout_ms) && isIntOrNull(item.action.max_output_length)).toBe(true);
        expect(item.status).toBe('completed');
      }
      if (seed === 1) {
        expect(gbnfMatches(grammar, '{"name": "shell", "parameters": {"commands": ["ls"]}}')).toBe(true);
        expect(gbnfMatches(grammar, '{"name": "shell", "parameters": {"commands": "ls"}}')).toBe(false);
      }
    }
  });

  it('apply_patch: every walk is an apply_patch_call with a typed operation', async () => {
    for (const seed of SEEDS) {
      const { output, grammar } = await forced(seed, [{ type: 'apply_patch' }], { type: 'apply_patch' });
      for (const item of output as OpenAI.Responses.ResponseApplyPatchToolCall[]) {
        expect(item.type).toBe('apply_patch_call');
        expect(['create_file', 'update_file', 'delete_file']).toContain(item.operation.type);
        expect(item.operation.path.length).toBeGreaterThan(0);
        if (item.operation.type === 'delete_file') expect(item.operation).not.toHaveProperty('diff');
        else expect(isText(item.operation.diff)).toBe(true);
      }
      if (seed === 1)
        expect(
          gbnfMatches(grammar, '{"name": "apply_patch", "parameters": {"type": "rename_file", "path": "a"}}'),
        ).toBe(false);
    }
  });

  it('local_shell: every walk is a local_shell_call with an exec action', async () => {
    const choice = { type: 'allowed_tools', mode: 'required', tools: [{ type: 'local_shell' }] };
    for (const seed of SEEDS) {
      const { output } = await forced(seed, [{ type: 'local_shell' }], choice);
      for (const item of output) {
        expect(item.type).toBe('local_shell_call');
        const action = (item as unknown as { action: Record<string, unknown> }).action;
        expect(action.type).toBe('exec');
        expect((action.command as string[]).length).toBeGreaterThan(0);
        expect(Object.values(action.env as object).every(isText)).toBe(true);
      }
    }
  });

  it('a namespace function and a client tool_search: function_call with namespace, tool_search_call', async () => {
    const ns = {
      type: 'namespace',
      name: 'crm',
      description: 'CRM',
      tools: [
        {
          type: 'function',
          name: 'get',
          parameters: {
            type: 'object',
            properties: { id: { type: 'integer' } },
            required: ['id'],
            additionalProperties: false,
          },
        },
      ],
    };
    for (const seed of SEEDS.slice(0, 6)) {
      const named = await forced(seed, [ns], { type: 'function', name: 'crm.get' });
      for (const item of named.output as OpenAI.Responses.ResponseFunctionToolCall[]) {
        expect(item).toMatchObject({ type: 'function_call', name: 'get', namespace: 'crm' });
        expect(Number.isInteger(JSON.parse(item.arguments).id)).toBe(true);
      }
      const search = await forced(seed, [{ type: 'tool_search', execution: 'client' }], {
        type: 'allowed_tools',
        mode: 'required',
        tools: [{ type: 'tool_search' }],
      });
      for (const item of search.output as OpenAI.Responses.ResponseToolSearchCall[]) {
        expect(item).toMatchObject({ type: 'tool_search_call', execution: 'client' });
        expect(isText((item.arguments as { query: unknown }).query)).toBe(true);
      }
    }
  });
});
