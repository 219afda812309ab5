/**
 * Issue 35's acceptance for file_search with no download: in real Chromium, an app that configures
 * no embedding model (and so none that would need WebGPU or a download) uploads files into a vector
 * store, every file is indexed lexically, and the hosted `file_search` tool answers from them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamResponse, uploadToStore } from './file-search.page';
import { type AppSession, openApp } from './harness';

const path = `/tests/e2e/pages/options.html#${encodeURIComponent('{}')}`;

let app: AppSession & { pageErrors: string[] };
beforeAll(async () => {
  app = await openApp({ path, testPages: true });
});
afterAll(() => app?.close());

describe('file_search with no embedding model configured, in Chromium', () => {
  it('indexes every file lexically and answers the tool from them', async () => {
    const uploaded = await app.page.evaluate(uploadToStore, [
      { name: 'sky.txt', text: 'The sky is blue on a clear day.' },
      { name: 'grass.txt', text: 'Grass is green in spring.' },
    ]);
    expect(uploaded.batchStatus).toBe('completed');
    expect(uploaded.batchCounts).toMatchObject({ completed: 2, failed: 0 });
    const kinds = await app.page.evaluate(async (id) => {
      const store = await (await fetch(`/v1/vector_stores/${id}`)).json();
      const files = await (await fetch(`/v1/vector_stores/${id}/files`)).json();
      return {
        store: store.search_index,
        files: files.data.map((f: { search_index?: string }) => f.search_index),
      };
    }, uploaded.vectorStoreId);
    expect(kinds).toEqual({ store: 'lexical', files: ['lexical', 'lexical'] });

    const events = await app.page.evaluate(streamResponse, {
      model: 'scripted',
      input: '!file_search green grass',
      tools: [{ type: 'file_search', vector_store_ids: [uploaded.vectorStoreId] }],
      include: ['file_search_call.results'],
    });
    const done = events.find((e) => e.type === 'response.completed') as {
      response: { output: { type: string; results?: { filename: string }[] }[]; output_text?: string };
    };
    const call = done.response.output.find((o) => o.type === 'file_search_call');
    expect(call?.results?.[0]?.filename).toBe('grass.txt');
    expect(JSON.stringify(done.response.output)).toContain('Grass is green in spring.');
  });

  it('left no errors in the page', () => {
    expect(app.pageErrors).toEqual([]);
  });
});
