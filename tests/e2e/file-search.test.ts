/**
 * Issue 22's acceptance in real Chromium through the real service worker: the openai SDK in the page
 * uploads text files into a vector store with `fileBatches.uploadAndPoll`, a reload keeps the files
 * and the store (IndexedDB), then `responses.create` streams the hosted `file_search` tool, first on
 * the `scripted` model (`!file_search …`: the event names and order, `results` with the include,
 * `file_citation` annotations), then on the tiny wllama GGUF (random weights, so gibberish text)
 * with `tool_choice: {type: 'file_search'}`, where the grammar-held call must become a
 * `file_search_call` item. The stores embed with `scripted` (deterministic, no GPU).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedState, streamResponse, type Uploaded, uploadToStore } from './file-search.page';
import { type AppSession, openApp, waitForReady } from './harness';

const options = {
  wllama: {
    models: [{ id: 'tiny', url: '/test-models/intab-tiny-random.gguf', label: 'tiny random model' }],
  },
  fileSearch: { embeddingModel: 'scripted' },
};
const path = `/tests/e2e/pages/options.html#${encodeURIComponent(JSON.stringify(options))}`;

const FILES = [
  { name: 'sky.txt', text: 'The sky is blue on a clear day.' },
  { name: 'grass.txt', text: 'Grass is green in spring.' },
  { name: 'sea.txt', text: 'The sea is blue and deep.' },
];

type Json = Record<string, unknown>;

let app: AppSession & { pageErrors: string[] };
let uploaded: Uploaded;
beforeAll(async () => {
  app = await openApp({ path, testPages: true });
});
afterAll(() => app?.close());

/** The hosted item's own events, with the output items around them, in stream order. */
const FILE_SEARCH_EVENTS = [
  'response.output_item.added',
  'response.file_search_call.in_progress',
  'response.file_search_call.searching',
  'response.file_search_call.completed',
  'response.output_item.done',
];

describe('file_search through the service worker', () => {
  it('uploads files into a vector store with fileBatches.uploadAndPoll', async () => {
    uploaded = await app.page.evaluate(uploadToStore, FILES);
    expect(uploaded.vectorStoreId).toMatch(/^vs_/);
    expect(uploaded.batchStatus).toBe('completed');
    expect(uploaded.batchCounts).toEqual({ in_progress: 0, completed: 3, failed: 0, cancelled: 0, total: 3 });
    expect(Object.keys(uploaded.fileIds).sort()).toEqual(['grass.txt', 'sea.txt', 'sky.txt']);
  });

  it('keeps the files and the store across a reload', async () => {
    await app.page.reload();
    await waitForReady(app.page);
    const state = await app.page.evaluate(storedState, uploaded.vectorStoreId);
    expect(state).toEqual({
      files: uploaded.fileIds,
      store: {
        status: 'completed',
        file_counts: { in_progress: 0, completed: 3, failed: 0, cancelled: 0, total: 3 },
      },
      storeFiles: ['completed', 'completed', 'completed'],
    });
  });

  it('streams a file_search_call, its results and file_citation annotations on scripted', async () => {
    const events = await app.page.evaluate(streamResponse, {
      model: 'scripted',
      input: '!file_search blue sky',
      tools: [{ type: 'file_search', vector_store_ids: [uploaded.vectorStoreId] }],
      include: ['file_search_call.results'],
    });
    const types = events.map((e) => e.type);
    expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    expect(types.slice(2, 7)).toEqual(FILE_SEARCH_EVENTS);
    expect(types.at(-1)).toBe('response.completed');
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const added = events[2] as { item: Json; output_index: number };
    expect(added.item).toMatchObject({ type: 'file_search_call', status: 'in_progress' });
    expect(String(added.item.id)).toMatch(/^fs_/);
    for (const e of events.slice(3, 6)) expect(e).toMatchObject({ item_id: added.item.id, output_index: 0 });
    const done = events[6] as { item: { results: Json[] } & Json };
    expect(done.item).toMatchObject({ status: 'completed', queries: ['blue sky'] });
    // The scripted embedding ranks the two "blue" files; the include puts them on the item.
    const resultIds = done.item.results.map((r) => r.file_id);
    expect(resultIds.slice(0, 2).sort()).toEqual(
      [uploaded.fileIds['sea.txt'], uploaded.fileIds['sky.txt']].sort(),
    );
    expect(done.item.results[0]).toEqual({
      file_id: expect.any(String),
      filename: expect.any(String),
      score: expect.any(Number),
      text: expect.any(String),
      // A file added without attributes has none: null, as `attributes?: … | null` allows.
      attributes: null,
    });
    // Then the answer, in the same response, citing what it quoted.
    expect(types.slice(7, 9)).toEqual(['response.output_item.added', 'response.content_part.added']);
    const final = (events.at(-1) as { response: { output: Json[] } }).response;
    expect(final.output.map((o) => o.type)).toEqual(['file_search_call', 'message']);
    const part = ((final.output[1] as { content: Json[] }).content[0] ?? {}) as {
      text: string;
      annotations: { type: string; file_id: string; filename: string; index: number }[];
    };
    expect(part.text).not.toContain('【');
    expect(part.annotations.length).toBeGreaterThan(0);
    for (const a of part.annotations) {
      expect(a).toEqual({
        type: 'file_citation',
        file_id: expect.any(String),
        filename: expect.any(String),
        index: a.index,
      });
      expect(uploaded.fileIds[a.filename]).toBe(a.file_id);
      expect(part.text.slice(a.index).trimStart().startsWith(a.filename)).toBe(true);
    }
    const announced = events.filter((e) => e.type === 'response.output_text.annotation.added');
    expect(announced.map((e) => e.annotation)).toEqual(part.annotations);
    expect(announced.map((e) => e.annotation_index)).toEqual(part.annotations.map((_, i) => i));
    for (const e of announced) expect(e).toMatchObject({ output_index: 1, content_index: 0 });
  });

  it("turns the tiny GGUF's grammar-held call into a file_search_call under tool_choice file_search", async () => {
    const events = await app.page.evaluate(streamResponse, {
      model: 'tiny',
      input: 'What colour is the sky?',
      tools: [{ type: 'file_search', vector_store_ids: [uploaded.vectorStoreId], max_num_results: 2 }],
      tool_choice: { type: 'file_search' },
      max_output_tokens: 400,
      temperature: 0,
    });
    const types = events.map((e) => e.type);
    // Structure only: random weights write gibberish, but the call is held by the grammar.
    expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    expect(types.slice(2, 7)).toEqual(FILE_SEARCH_EVENTS);
    const done = events[6] as { item: Json };
    expect(done.item).toMatchObject({ type: 'file_search_call', status: 'completed', results: null });
    const queries = done.item.queries as unknown[];
    expect(Array.isArray(queries)).toBe(true);
    for (const q of queries) expect(typeof q).toBe('string');
    const last = events.at(-1) as { type: string; response: { output: Json[] } };
    expect(['response.completed', 'response.incomplete']).toContain(last.type);
    expect(last.response.output[0]).toEqual(done.item);
    // The forced call is never surfaced as a client function call.
    expect(last.response.output.some((o) => o.type === 'function_call')).toBe(false);
    // Real llama.cpp on 2 shared cores: ~400 tokens over two passes take up to a minute.
  }, 180_000);

  it('left no errors in the page', () => {
    expect(app.pageErrors).toEqual([]);
  });
});
