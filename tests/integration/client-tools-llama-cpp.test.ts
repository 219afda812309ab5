/**
 * Issue 45: forced calls of the client tools (`shell`, `apply_patch`, `local_shell`, a namespace's
 * function, client `tool_search`) sampled by real llama.cpp. The CI-built `llama-server` samples
 * the tiny GGUF (random weights) under the grammar intab's wllama engine builds for the forced tool,
 * over many seeds, for two JSON families and the raw one (FAMILIES). Every finished reply is
 * one the grammar accepts and one call whose arguments pass the tool's schema by an independent
 * validator (ajv), and that becomes the typed item OpenAI sends for that tool.
 */
import { Ajv } from 'ajv';
import type { ResponseOutputItem } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clientCallMap,
  clientTools,
  loadClientToolsFor,
} from '../../src/core/responses/request/tools/client-tools';
import { clientCallItem } from '../../src/core/responses/run/client-call-events';
import { forcedCalls } from '../helpers/forced-calls';
import { LLAMA_BUILD_MS, type LlamaServer, startLlamaServer } from '../helpers/llama-server';

const SEEDS = 8;
const MAX_TOKENS = 160;
/**
 * Random weights never end a free string by chance: a bias toward the tokens that close strings,
 * arrays and objects lets replies finish within the budget. The grammar still decides what may
 * come; the test asserts that whatever finishes is valid.
 */
const CLOSERS: Array<[string, number]> = [
  ['"', 8],
  [']', 4],
  ['}', 4],
];

/** Each tool as a request declares it, and what its typed item must hold. */
const TOOLS: Array<{ raw: Record<string, unknown>; item: (item: ResponseOutputItem) => void }> = [
  {
    raw: { type: 'shell', environment: { type: 'local' } },
    item: (item) => {
      expect(item.type).toBe('shell_call');
      const { action } = item as Extract<ResponseOutputItem, { type: 'shell_call' }>;
      expect(action.commands.length).toBeGreaterThan(0);
      for (const c of action.commands) expect(typeof c === 'string' && c.length > 0).toBe(true);
    },
  },
  {
    raw: { type: 'apply_patch' },
    item: (item) => {
      expect(item.type).toBe('apply_patch_call');
      const { operation } = item as Extract<ResponseOutputItem, { type: 'apply_patch_call' }>;
      expect(['create_file', 'update_file', 'delete_file']).toContain(operation.type);
      expect(typeof operation.path).toBe('string');
    },
  },
  {
    raw: { type: 'local_shell' },
    item: (item) => {
      expect(item.type).toBe('local_shell_call');
      const { action } = item as Extract<ResponseOutputItem, { type: 'local_shell_call' }>;
      expect(action.type).toBe('exec');
      expect(Array.isArray(action.command)).toBe(true);
    },
  },
  {
    raw: {
      type: 'namespace',
      name: 'crm',
      description: 'Customer records.',
      tools: [
        {
          type: 'function',
          name: 'lookup',
          parameters: {
            type: 'object',
            properties: { id: { type: 'integer' } },
            required: ['id'],
            additionalProperties: false,
          },
        },
      ],
    },
    item: (item) => {
      expect(item).toMatchObject({ type: 'function_call', namespace: 'crm', name: 'lookup' });
      expect(Number.isInteger(JSON.parse((item as { arguments: string }).arguments).id)).toBe(true);
    },
  },
  {
    raw: { type: 'tool_search', execution: 'client' },
    item: (item) => {
      expect(item).toMatchObject({ type: 'tool_search_call', execution: 'client' });
    },
  },
];

let server: LlamaServer;
beforeAll(async () => {
  await loadClientToolsFor(TOOLS.map((t) => t.raw));
  server = await startLlamaServer();
}, LLAMA_BUILD_MS);
afterAll(() => server?.stop());

let n = 0;
const ids = (prefix: string) => `${prefix}_${++n}`;

/**
 * The families, each with the tools it is sampled for: two JSON ones (Llama 3.2's `parameters`,
 * Qwen2.5's `<tool_call>`) for every tool, and the raw one (Qwen3.5, values between
 * `<parameter=…>` tags) for the tools without a free string value: random weights do not end raw
 * free text within the budget (custom-tools-llama-cpp.test.ts samples raw strings under a regex).
 */
const FAMILIES: Array<[string, string[]]> = [
  ['Llama-3.2-1B-Instruct-q4f16_1-MLC', TOOLS.map((t) => t.raw.type as string)],
  ['Qwen2.5-0.5B-Instruct-q4f16_1-MLC', TOOLS.map((t) => t.raw.type as string)],
  ['Qwen3.5-0.8B-q4f16_1-MLC', ['shell', 'local_shell', 'namespace']],
];

describe.each(FAMILIES)('forced client tool calls on %s, sampled by llama.cpp', (model, types) => {
  it.each(TOOLS.filter((t) => types.includes(t.raw.type as string)).map((t) => ({ ...t, type: t.raw.type })))(
    'every $type call passes its schema and becomes its typed item',
    async ({ raw, item }) => {
      const tool = clientTools().parseClientToolAt([raw as { type: string }], 0);
      const [spec] = clientTools().clientSpecs(tool);
      if (!spec) throw new Error('no spec');
      const call = clientCallMap([tool]).get(spec.name);
      if (!call) throw new Error(`no client call for ${spec.name}`);
      const validate = new Ajv({ strict: false }).compile(spec.parameters ?? {});
      const calls = await forcedCalls(server, model, spec, {
        seeds: SEEDS,
        maxTokens: MAX_TOKENS,
        bias: CLOSERS,
      });
      for (const { where, args } of calls) {
        expect(validate(JSON.parse(args)), `${where}: ${JSON.stringify(validate.errors)}`).toBe(true);
        item(clientCallItem(call, args, ids) as ResponseOutputItem);
      }
      // The grammar bounds every call, so random weights finish some replies within the budget.
      expect(calls.length, `${calls.length} of ${SEEDS} replies finished`).toBeGreaterThan(0);
    },
    300_000,
  );
});
