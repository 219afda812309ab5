/**
 * Validation of the `file_search` tool and the hosted tool choices: every bad value is a 400 with
 * OpenAI's `param`, before anything is stored or searched.
 */
import { describe, expect, it } from 'vitest';
import { MemoryFileSearch } from '../helpers/file-search-double';
import { makeRig } from '../helpers/server';
import { expectError } from './create-helpers';

const ok = { type: 'file_search', vector_store_ids: ['vs_docs'] };

function nested(depth: number): unknown {
  let f: unknown = { type: 'eq', key: 'k', value: 1 };
  for (let i = 0; i < depth; i++) f = { type: 'and', filters: [f] };
  return f;
}

const cases: { name: string; body: Record<string, unknown>; param: string; code?: string }[] = [
  {
    name: 'unknown vector store',
    body: { tools: [{ ...ok, vector_store_ids: ['vs_nope'] }] },
    param: 'tools[0].vector_store_ids',
  },
  {
    name: 'no vector_store_ids',
    body: { tools: [{ type: 'file_search' }] },
    param: 'tools[0].vector_store_ids',
  },
  {
    name: 'empty vector_store_ids',
    body: { tools: [{ ...ok, vector_store_ids: [] }] },
    param: 'tools[0].vector_store_ids',
  },
  {
    name: 'max_num_results 0',
    body: { tools: [{ ...ok, max_num_results: 0 }] },
    param: 'tools[0].max_num_results',
  },
  {
    name: 'max_num_results 51',
    body: { tools: [{ ...ok, max_num_results: 51 }] },
    param: 'tools[0].max_num_results',
  },
  {
    name: 'max_num_results 2.5',
    body: { tools: [{ ...ok, max_num_results: 2.5 }] },
    param: 'tools[0].max_num_results',
  },
  {
    name: 'unknown ranker',
    body: { tools: [{ ...ok, ranking_options: { ranker: 'best' } }] },
    param: 'tools[0].ranking_options.ranker',
  },
  {
    name: 'score_threshold above 1',
    body: { tools: [{ ...ok, ranking_options: { score_threshold: 2 } }] },
    param: 'tools[0].ranking_options.score_threshold',
  },
  {
    name: 'hybrid_search without text_weight',
    body: { tools: [{ ...ok, ranking_options: { hybrid_search: { embedding_weight: 1 } } }] },
    param: 'tools[0].ranking_options.hybrid_search.text_weight',
  },
  { name: 'unknown tool field', body: { tools: [{ ...ok, top_k: 3 }] }, param: 'tools[0].top_k' },
  {
    name: 'filter with an unknown operator',
    body: { tools: [{ ...ok, filters: { type: 'like', key: 'k', value: 'v' } }] },
    param: 'tools[0].filters.type',
  },
  {
    name: 'nested filter with an object value',
    body: { tools: [{ ...ok, filters: { type: 'or', filters: [{ type: 'eq', key: 'k', value: {} }] } }] },
    param: 'tools[0].filters.filters[0].value',
  },
  {
    name: 'filters nested too deep',
    body: { tools: [{ ...ok, filters: nested(9) }] },
    param:
      'tools[0].filters.filters[0].filters[0].filters[0].filters[0].filters[0].filters[0].filters[0].filters[0]',
  },
  { name: 'two file_search tools', body: { tools: [ok, ok] }, param: 'tools[1].type' },
  {
    name: 'a function named file_search beside the tool',
    body: { tools: [ok, { type: 'function', name: 'file_search', parameters: null }] },
    param: 'tools[1].name',
  },
  {
    name: "tool_choice {type:'file_search'} without the tool",
    body: { tool_choice: { type: 'file_search' } },
    param: 'tool_choice',
  },
  {
    name: "tool_choice {type:'web_search_preview'}",
    body: { tools: [ok], tool_choice: { type: 'web_search_preview' } },
    param: 'tool_choice.type',
    code: 'unsupported_value',
  },
  {
    // code_interpreter runs locally now (issue 26): forcing it without the tool is a missing tool, as for file_search.
    name: "tool_choice {type:'code_interpreter'} without the tool",
    body: { tools: [ok], tool_choice: { type: 'code_interpreter' } },
    param: 'tool_choice',
  },
  {
    name: 'allowed_tools naming file_search without the tool',
    body: { tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [{ type: 'file_search' }] } },
    param: 'tool_choice.tools[0]',
  },
];

describe('file_search validation', () => {
  for (const c of cases) {
    it(`${c.name} → 400 ${c.param}`, async () => {
      const backend = new MemoryFileSearch({ vs_docs: [] });
      const { call, store } = makeRig({ fileSearch: backend });
      const res = await call('POST', '/responses', { model: 'scripted', input: '!file_search x', ...c.body });
      await expectError(res, 400, c.param, c.code);
      expect(backend.queries).toHaveLength(0);
      expect((await store.listRecent(10)).responses).toHaveLength(0);
    });
  }

  it('names the unknown store in its message', async () => {
    const { call } = makeRig({ fileSearch: new MemoryFileSearch({ vs_docs: [] }) });
    const res = await call('POST', '/responses', {
      model: 'scripted',
      input: 'x',
      tools: [{ ...ok, vector_store_ids: ['vs_docs', 'vs_gone'] }],
    });
    expect(await expectError(res, 400, 'tools[0].vector_store_ids')).toContain('vs_gone');
  });

  it('accepts file_search in allowed_tools, and tool_choice none offers it to no one', async () => {
    const backend = new MemoryFileSearch({ vs_docs: [] });
    const { client } = makeRig({ fileSearch: backend });
    const allowed = await client.responses.create({
      model: 'scripted',
      input: '!file_search x',
      tools: [{ type: 'function', name: 'f', parameters: null, strict: false }, ok as never],
      tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [{ type: 'file_search' }] },
    });
    expect(allowed.output.map((o) => o.type)).toEqual(['file_search_call', 'message']);
    const none = await client.responses.create({
      model: 'scripted',
      input: '!file_search x',
      tools: [ok as never],
      tool_choice: 'none',
    });
    expect(none.output.map((o) => o.type)).toEqual(['message']);
    expect(backend.queries).toHaveLength(1);
  });

  it('over the built-in vector stores, an unknown store id is a 400 on tools[i].vector_store_ids', async () => {
    const { call } = makeRig();
    const res = await call('POST', '/responses', { model: 'scripted', input: 'x', tools: [ok] });
    const body = (await res.json()) as { error: { param: string; type: string } };
    expect(res.status).toBe(400);
    expect(body.error).toMatchObject({ param: 'tools[0].vector_store_ids', type: 'invalid_request_error' });
  });
});
