/**
 * `file_search` from the SDKs, unchanged: the OpenAI Agents SDK's `fileSearchTool([vsId])` and the
 * AI SDK's `openai.tools.fileSearch`, each run against the core with the scripted model and an
 * in-memory vector store double.
 */
import { createOpenAI } from '@ai-sdk/openai';
import {
  Agent,
  fileSearchTool,
  run,
  setDefaultOpenAIClient,
  setOpenAIAPI,
  setTracingDisabled,
} from '@openai/agents';
import { generateText, streamText } from 'ai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { MemoryFileSearch } from '../helpers/file-search-double';
import { BASE, makeRig } from '../helpers/server';

const FILES = {
  vs_docs: [
    { file_id: 'file-sky', filename: 'sky.txt', text: 'The sky is blue on a clear day.' },
    { file_id: 'file-grass', filename: 'grass.txt', text: 'Grass is green in spring.' },
  ],
};

function rig() {
  const backend = new MemoryFileSearch(FILES);
  const { server } = makeRig({ fileSearch: backend });
  const bodies: Record<string, unknown>[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const req = new Request(input, init);
    if (req.method === 'POST') bodies.push(await req.clone().json());
    return server.fetch(req);
  };
  return { backend, bodies, fetch };
}

describe('OpenAI Agents SDK fileSearchTool', () => {
  it('runs an agent whose file_search runs inside intab', async () => {
    const { backend, bodies, fetch } = rig();
    setDefaultOpenAIClient(new OpenAI({ apiKey: 'intab-test', baseURL: BASE, maxRetries: 0, fetch }));
    setOpenAIAPI('responses');
    setTracingDisabled(true);
    const agent = new Agent({
      name: 'librarian',
      instructions: 'Answer from the files.',
      model: 'scripted',
      tools: [fileSearchTool(['vs_docs'], { maxNumResults: 3, includeSearchResults: true })],
    });
    const result = await run(agent, '!file_search blue sky');
    expect(bodies[0]).toMatchObject({
      tools: [{ type: 'file_search', vector_store_ids: ['vs_docs'], max_num_results: 3 }],
      include: ['file_search_call.results'],
    });
    expect(backend.queries[0]).toMatchObject({ queries: ['blue sky'], maxNumResults: 3 });
    expect(result.finalOutput).toContain('The sky is blue on a clear day.');
    expect(result.finalOutput).not.toContain('【');
    const call = result.newItems.find((i) => i.type === 'tool_call_item');
    expect(call?.rawItem).toMatchObject({
      type: 'hosted_tool_call',
      name: 'file_search_call',
      status: 'completed',
    });
    // One request: the search ran inside the response, not as a client round trip.
    expect(bodies).toHaveLength(1);
  });
});

describe('AI SDK openai.tools.fileSearch', () => {
  it('generates text over a provider-executed file search, with its sources', async () => {
    const { fetch } = rig();
    const openai = createOpenAI({ baseURL: BASE, apiKey: 'intab-test', fetch });
    const result = await generateText({
      model: openai.responses('scripted'),
      prompt: '!file_search blue sky',
      tools: { file_search: openai.tools.fileSearch({ vectorStoreIds: ['vs_docs'], maxNumResults: 2 }) },
    });
    expect(result.text).toContain('The sky is blue on a clear day.');
    const call = result.toolCalls.find((c) => c.toolName === 'file_search');
    expect(call?.providerExecuted).toBe(true);
    const output = result.toolResults.find((r) => r.toolName === 'file_search');
    expect(output?.output).toMatchObject({ queries: ['blue sky'] });
    // Citations arrive as document sources.
    expect(result.sources).toContainEqual(
      expect.objectContaining({ sourceType: 'document', filename: 'sky.txt' }),
    );
  });

  it('streams the same', async () => {
    const { fetch } = rig();
    const openai = createOpenAI({ baseURL: BASE, apiKey: 'intab-test', fetch });
    const result = streamText({
      model: openai.responses('scripted'),
      prompt: '!file_search green grass',
      tools: { file_search: openai.tools.fileSearch({ vectorStoreIds: ['vs_docs'] }) },
    });
    expect(await result.text).toContain('Grass is green in spring.');
    expect((await result.toolResults).map((r) => r.toolName)).toEqual(['file_search']);
  });
});
