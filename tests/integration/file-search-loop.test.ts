/**
 * The `file_search` tool loop inside `responses.create`, through the official `openai` SDK over the
 * core with the scripted model and an in-memory vector store double: the backend's options,
 * tool_choice forcing, the model-facing tool, max_tool_calls and the pass ceiling, summed usage and
 * max_output_tokens, results shortened to fit, malformed calls, and input token counts.
 */
import { describe, expect, it } from 'vitest';
import { callableTools } from '../../src/engine/tool-formats/request-plan';
import type { GenerateRequest } from '../../src/engine/types';
import { cpuNow } from '../helpers/cpu-time';
import { MemoryFileSearch } from '../helpers/file-search-double';
import { makeRig, readStream } from '../helpers/server';
import { fakeEngine } from './create-helpers';
import { CountingEngine, calls, FILES, rig, TOOL } from './file-search-rig';

describe('file_search in responses.create', () => {
  it('passes max_num_results, score_threshold and filters to the backend, and keeps to them', async () => {
    const { client, backend } = rig();
    const filters = { type: 'eq' as const, key: 'lang', value: 'en' };
    const r = await client.responses.create({
      model: 'scripted',
      input: '!file_search the blue sky is green',
      tools: [{ ...TOOL, max_num_results: 1, ranking_options: { score_threshold: 0.3 }, filters }],
      include: ['file_search_call.results'],
    });
    expect(backend.queries[0]).toMatchObject({
      vectorStoreIds: ['vs_docs'],
      queries: ['the blue sky is green'],
      maxNumResults: 1,
      rankingOptions: { ranker: 'auto', score_threshold: 0.3 },
      filters,
    });
    expect(backend.queries[0]?.signal).toBeInstanceOf(AbortSignal);
    expect(calls(r.output)[0]?.results?.map((h) => h.file_id)).toEqual(['file-sky']);
    // The echo fills in what was left out, as OpenAI's does.
    expect(r.tools[0]).toEqual({
      type: 'file_search',
      vector_store_ids: ['vs_docs'],
      filters,
      max_num_results: 1,
      ranking_options: { ranker: 'auto', score_threshold: 0.3 },
    });
  });

  it("tool_choice {type:'file_search'} forces a search, then the model answers", async () => {
    const engine = new CountingEngine();
    const { client, backend } = rig(engine);
    const r = await client.responses.create({
      model: 'scripted',
      input: 'blue sea',
      tools: [{ type: 'function', name: 'f', parameters: null, strict: false }, TOOL],
      tool_choice: { type: 'file_search' },
    });
    expect(r.output.map((o) => o.type)).toEqual(['file_search_call', 'message']);
    expect(backend.queries[0]?.queries).toEqual(['blue sea']);
    expect(r.tool_choice).toEqual({ type: 'file_search' });
    // The forced choice held for the first pass only.
    expect(engine.requests.map((q) => q.toolChoice)).toEqual([{ name: 'file_search' }, 'auto']);
  });

  it('offers the model file_search(queries) in its tools, never on the wire', async () => {
    const engine = new CountingEngine();
    const { client } = rig(engine);
    const r = await client.responses.create({
      model: 'scripted',
      input: 'hi',
      tools: [TOOL],
      tool_choice: 'none',
    });
    // Shown whatever the choice (issue 44, item 4), and not callable under `none`.
    expect(engine.requests[0]?.tools.map((t) => t.name)).toEqual(['file_search']);
    expect(callableTools(engine.requests[0] as GenerateRequest)).toEqual([]);
    await client.responses.create({ model: 'scripted', input: 'hi', tools: [TOOL] });
    expect(engine.requests[1]?.tools.map((t) => t.name)).toEqual(['file_search']);
    expect(engine.requests[1]?.tools[0]?.parameters).toMatchObject({ required: ['queries'] });
    expect(JSON.stringify(r)).not.toContain('queries');
  });

  it('max_tool_calls stops the loop: later searches are not run', async () => {
    const engine = new CountingEngine();
    const { client, backend } = rig(engine);
    const two = await client.responses.create({
      model: 'scripted',
      input: '!file_search sky !file_search grass',
      tools: [TOOL],
    });
    expect(calls(two.output).map((c) => c.queries)).toEqual([['sky'], ['grass']]);
    expect(engine.requests).toHaveLength(3);
    const one = await client.responses.create({
      model: 'scripted',
      input: '!file_search sky !file_search grass',
      tools: [TOOL],
      max_tool_calls: 1,
    });
    expect(calls(one.output).map((c) => c.queries)).toEqual([['sky']]);
    expect(one.output.at(-1)?.type).toBe('message');
    expect(one.status).toBe('completed');
    expect(backend.queries).toHaveLength(3);
    // The pass after the last allowed call may call no hosted tool; its prompt still shows it.
    expect(engine.requests.at(-1)?.tools.map((t) => t.name)).toEqual(['file_search']);
    expect(callableTools(engine.requests.at(-1) as GenerateRequest)).toEqual([]);
  });

  it('stops at the fixed ceiling of engine passes whatever the model asks', async () => {
    const engine = new CountingEngine();
    const { client } = rig(engine);
    const r = await client.responses.create({
      model: 'scripted',
      input: Array.from({ length: 20 }, (_, i) => `!file_search q${i}`).join(' '),
      tools: [TOOL],
    });
    expect(engine.requests).toHaveLength(8);
    expect(calls(r.output)).toHaveLength(7);
    expect(r.output.at(-1)?.type).toBe('message');
  });

  it('sums usage over every pass', async () => {
    const engine = new CountingEngine();
    const { client } = rig(engine);
    const r = await client.responses.create({
      model: 'scripted',
      input: '!file_search sky !file_search grass',
      tools: [TOOL],
    });
    expect(engine.usages).toHaveLength(3);
    const sum = (k: 'input_tokens' | 'output_tokens') => engine.usages.reduce((n, u) => n + u[k], 0);
    expect(r.usage).toMatchObject({
      input_tokens: sum('input_tokens'),
      output_tokens: sum('output_tokens'),
      total_tokens: sum('input_tokens') + sum('output_tokens'),
    });
    // Each pass read more than the one before: the calls and results were appended.
    const inputs = engine.usages.map((u) => u.input_tokens);
    expect(inputs[1]).toBeGreaterThan(inputs[0] ?? 0);
    expect(inputs[2]).toBeGreaterThan(inputs[1] ?? 0);
  });

  it('max_output_tokens counts every pass: the response ends incomplete', async () => {
    const { client } = rig();
    const r = await client.responses.create({
      model: 'scripted',
      input: '!file_search blue sky',
      tools: [TOOL],
      max_output_tokens: 16,
    });
    expect(r.status).toBe('incomplete');
    expect(r.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(r.usage?.output_tokens).toBe(16);
    expect(calls(r.output)).toHaveLength(1);
  });

  it("shortens the results to fit the model's context rather than failing the response", async () => {
    // 12 excerpts of 600 words: 7,200 tokens, past the scripted model's 4,096-token window.
    const big = Array.from({ length: 12 }, (_, i) => ({
      file_id: `file-${i}`,
      filename: `big${i}.txt`,
      text: `blue ${'word '.repeat(599)}`.trim(),
    }));
    const backend = new MemoryFileSearch({ vs_docs: big });
    const engine = new CountingEngine();
    const { client } = makeRig({ fileSearch: backend, engine });
    const start = cpuNow();
    const r = await client.responses.create({
      model: 'scripted',
      input: '!file_search blue',
      tools: [TOOL],
      include: ['file_search_call.results'],
    });
    const ms = cpuNow() - start;
    expect(r.status).toBe('completed');
    // The item keeps every hit; the model was shown the best ones, and told the rest were left out.
    expect(calls(r.output)[0]?.results).toHaveLength(12);
    const shown = engine.requests[1]?.messages.at(-1)?.content as string;
    expect(shown).toMatch(/\(\d+ more excerpts were left out to fit the model's context\.\)$/);
    expect(shown).toContain('【1】 big');
    expect(engine.usages[1]?.input_tokens).toBeLessThanOrEqual(4096 - 256);
    // Halving from 12 excerpts takes at most 5 counts: bounded, not one count per excerpt.
    expect(ms).toBeLessThan(5000);
  });

  it('ends a malformed call failed, tells the model, and stays bounded when the model insists', async () => {
    const engine = fakeEngine([{ type: 'tool_call', name: 'file_search', arguments: 'not json' }]);
    const backend = new MemoryFileSearch(FILES);
    const { client } = makeRig({ engine, fileSearch: backend });
    const stream = await client.responses.create({
      model: 'scripted',
      input: 'x',
      tools: [TOOL],
      stream: true,
    });
    const events = await readStream(stream);
    const types = events.map((e) => e.type);
    const final = events.flatMap((e) => (e.type === 'response.completed' ? [e.response] : []))[0];
    // The model writes the same bad call every pass: 7 calls run (failed), the 8th pass is offered none.
    expect(final?.status).toBe('completed');
    expect(calls(final?.output ?? []).map((c) => [c.status, c.queries])).toEqual(
      Array.from({ length: 7 }, () => ['failed', []]),
    );
    expect(backend.queries).toHaveLength(0);
    // A failed call has no `searching`/`completed` events after it was found malformed.
    expect(types.filter((t) => t === 'response.file_search_call.completed')).toHaveLength(0);
    expect(types.filter((t) => t === 'response.file_search_call.searching')).toHaveLength(7);
  });

  it('counts input tokens with the model-facing file_search in the tools', async () => {
    const { client } = rig();
    const without = await client.responses.inputTokens.count({ model: 'scripted', input: 'hello' });
    const withTool = await client.responses.inputTokens.count({
      model: 'scripted',
      input: 'hello',
      tools: [TOOL],
    });
    expect(withTool.input_tokens).toBeGreaterThan(without.input_tokens);
  });
});
