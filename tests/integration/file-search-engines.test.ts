/**
 * `file_search` on the real engines' code. The wllama engine: the real WllamaEngine (its Llama 3 tool format, its GBNF
 * request grammar, its call parser) over a fake llama.cpp that writes, pass by pass, what a model
 * would. The model-facing `file_search(queries)` is in the grammar, the call it writes there runs
 * as a hosted `file_search_call` (never a `function_call`), the next pass reads the result in the
 * family's tool-result turn, and the marker it writes becomes a citation. Real llama.cpp needs the
 * vector stores wired into the worker (tests/e2e, once `/v1/vector_stores` serves the tool). The
 * web-llm engine: the real WebLLMEngine over its fake MLCEngine, the same loop in Llama 3.2's format.
 */

import type { ResponseOutputMessage } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { FILE_SEARCH_SPEC } from '../../src/core/responses/request/tools/hosted-tools';
import { WllamaEngine } from '../../src/engine/wllama';
import { MemoryFileSearch } from '../helpers/file-search-double';
import { gbnfMatches } from '../helpers/gbnf-match';
import { makeRig } from '../helpers/server';
import { tinyGguf } from '../helpers/tiny-gguf';
import { FakeMLC, LLAMA, setup } from '../helpers/webllm-fakes';
import { type FakeWllama, PassFake } from '../helpers/wllama-fakes';

const CALL = '{"name": "file_search", "parameters": {"queries": ["blue sky"]}}';
const CALL_ARGS = '{"queries":["blue sky"]}';
const ANSWER = 'The sky is blue 【1】.';

function engineOver(fake: FakeWllama) {
  return new WllamaEngine({
    models: [{ id: 'm', files: [tinyGguf()] }],
    hasWebGpuF16: async () => false,
    createWllama: () => fake,
  });
}

/** The tool result text inside the last message (the family may wrap it, e.g. as a JSON string). */
function toolResult(params: { messages: { content: string }[] }): string {
  const last = params.messages.at(-1)?.content ?? '';
  const start = last.indexOf('"file_search results');
  return JSON.parse(last.slice(start, last.lastIndexOf('"') + 1));
}

describe('file_search on the wllama engine', () => {
  it('runs the grammar-constrained call as a hosted item and cites the answer', async () => {
    const fake = new PassFake([CALL, ANSWER]);
    const engine = engineOver(fake);
    const backend = new MemoryFileSearch({
      vs_docs: [{ file_id: 'file-sky', filename: 'sky.txt', text: 'The sky is blue on a clear day.' }],
    });
    const { client } = makeRig({ engine, fileSearch: backend });
    const r = await client.responses.create({
      model: 'm',
      input: 'What colour is the sky?',
      tools: [{ type: 'file_search', vector_store_ids: ['vs_docs'] }],
      tool_choice: { type: 'file_search' },
      temperature: 0,
    });
    expect(r.error).toBeNull();
    expect(r.output.map((o) => o.type)).toEqual(['file_search_call', 'message']);
    expect(r.output[0]).toMatchObject({ queries: ['blue sky'], status: 'completed' });
    expect(backend.queries[0]?.queries).toEqual(['blue sky']);
    const part = (r.output[1] as ResponseOutputMessage).content[0];
    expect(part).toEqual({
      type: 'output_text',
      text: 'The sky is blue .',
      annotations: [{ type: 'file_citation', file_id: 'file-sky', filename: 'sky.txt', index: 16 }],
      logprobs: [],
    });
    // The first pass was held to the call by its grammar; the call text is in that grammar.
    const first = fake.calls[0]?.params as {
      grammar?: string;
      messages: { role: string; content: string }[];
    };
    expect(first.grammar).toContain('file_search');
    expect(gbnfMatches(first.grammar as string, CALL)).toBe(true);
    expect(first.messages[0]?.content).toContain('"name": "file_search"');
    // The second pass read the call and the excerpt as the family reads a function call and its
    // output: exactly the messages the engine sends for that history sent as function items.
    const second = fake.calls[1]?.params as { messages: { role: string; content: string }[] };
    expect(second.messages.at(-1)?.content).toContain('The sky is blue on a clear day.');
    expect(second.messages.at(-1)?.content).toContain('【1】 sky.txt');
    const same = new PassFake(['ok']);
    const { client: plain } = makeRig({ engine: engineOver(same) });
    await plain.responses.create({
      model: 'm',
      input: [
        { role: 'user', content: 'What colour is the sky?' },
        {
          type: 'function_call',
          call_id: r.output[0]?.id as string,
          name: 'file_search',
          arguments: CALL_ARGS,
        },
        { type: 'function_call_output', call_id: r.output[0]?.id as string, output: toolResult(second) },
      ],
      tools: [
        {
          type: 'function',
          name: 'file_search',
          description: FILE_SEARCH_SPEC.description,
          parameters: FILE_SEARCH_SPEC.parameters,
          strict: true,
        },
      ],
      temperature: 0,
    });
    expect(second.messages).toEqual((same.calls[0]?.params as typeof second | undefined)?.messages);
    expect(r.usage?.input_tokens).toBe(2 * fake.promptTokens);
  });
});

/** A fake MLCEngine whose n-th generation writes `replies[n]` in one decode step. */
class PassMLC extends FakeMLC {
  constructor(config: ConstructorParameters<typeof FakeMLC>[0], replies: string[]) {
    super(config);
    const create = this.chat.completions.create;
    this.chat = {
      completions: {
        create: async (req) => {
          this.reply = [{ text: replies[this.requests.length] ?? '' }];
          return create(req);
        },
      },
    };
  }
}

describe('file_search on the web-llm engine', () => {
  it('runs the call as a hosted item and cites the answer', async () => {
    const fakes: PassMLC[] = [];
    const { engine } = setup({
      createEngine: (config) => {
        const fake = new PassMLC(config, [CALL, ANSWER]);
        fakes.push(fake);
        return fake;
      },
    });
    const backend = new MemoryFileSearch({
      vs_docs: [{ file_id: 'file-sky', filename: 'sky.txt', text: 'The sky is blue on a clear day.' }],
    });
    const { client } = makeRig({ engine, fileSearch: backend });
    const r = await client.responses.create({
      model: LLAMA,
      input: 'What colour is the sky?',
      tools: [{ type: 'file_search', vector_store_ids: ['vs_docs'] }],
      tool_choice: { type: 'file_search' },
    });
    expect(r.error).toBeNull();
    expect(r.output.map((o) => o.type)).toEqual(['file_search_call', 'message']);
    expect(backend.queries[0]?.queries).toEqual(['blue sky']);
    expect((r.output[1] as ResponseOutputMessage).content[0]).toMatchObject({
      text: 'The sky is blue .',
      annotations: [{ type: 'file_citation', file_id: 'file-sky', filename: 'sky.txt', index: 16 }],
    });
    const [first, second] = fakes[0]?.requests ?? [];
    // Offered in Llama 3.2's own tool section, and the call held to it by a grammar.
    expect(JSON.stringify(first?.messages)).toContain('\\"name\\": \\"file_search\\"');
    expect(first?.response_format).toBeDefined();
    expect(JSON.stringify(second?.messages)).toContain('The sky is blue on a clear day.');
  });
});
