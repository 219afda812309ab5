/**
 * Issue 22, the vector stores in Chromium: the routes through the real service worker and engine
 * worker (schema version 3 of the worker's IndexedDB), and indexing, search and delete over
 * Chromium's own IndexedDB (vectors stored as ArrayBuffers, key ranges per store), with
 * gpt-tokenizer's o200k tables fetched only when the first file is indexed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppSession, openApp } from './harness';

let app: AppSession & { pageErrors: string[] };
beforeAll(async () => {
  app = await openApp({ path: '/tests/e2e/pages/vector-stores.html', testPages: true });
});
afterAll(() => app?.close());

describe('vector stores in Chromium', () => {
  it('the engine worker serves /v1/vector_stores through the service worker', async () => {
    const r = await app.page.evaluate(async () => {
      const json = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`/v1${path}`, {
          method,
          headers: { 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, body: await res.json() };
      };
      const created = await json('POST', '/vector_stores', { name: 'e2e', metadata: { k: 'v' } });
      const id = created.body.id as string;
      return {
        created,
        listed: await json('GET', '/vector_stores?limit=5'),
        search: await json('POST', `/vector_stores/${id}/search`, { query: 'anything' }),
        badChunking: await json('POST', `/vector_stores/${id}/files`, {
          file_id: 'file-x',
          chunking_strategy: {
            type: 'static',
            static: { max_chunk_size_tokens: 100, chunk_overlap_tokens: 60 },
          },
        }),
        deleted: await json('DELETE', `/vector_stores/${id}`),
        gone: (await json('GET', `/vector_stores/${id}`)).status,
      };
    });
    expect(r.created.status).toBe(200);
    expect(r.created.body).toMatchObject({
      object: 'vector_store',
      name: 'e2e',
      status: 'completed',
      metadata: { k: 'v' },
      file_counts: { total: 0 },
    });
    expect(r.listed.body.data.map((s: { id: string }) => s.id)).toContain(r.created.body.id);
    expect(r.search.body).toMatchObject({ object: 'vector_store.search_results.page', data: [] });
    expect(r.badChunking).toMatchObject({
      status: 400,
      body: { error: { param: 'chunking_strategy.static.chunk_overlap_tokens' } },
    });
    expect(r.deleted.body).toEqual({ id: r.created.body.id, object: 'vector_store.deleted', deleted: true });
    expect(r.gone).toBe(404);
  });

  it('indexes, searches and deletes over Chromium’s IndexedDB; o200k loads with the first file', async () => {
    const r = await app.page.evaluate(() => window.vectorStoresInPage());
    expect(r).toEqual({
      status: 'completed',
      fileCounts: { in_progress: 0, completed: 2, failed: 0, cancelled: 0, total: 2 },
      first: 'file-pump',
      firstText: 'The pump pushes water uphill through the green pipe.',
      deleted: true,
      raw: 0,
      o200kBefore: false,
      o200kAfter: true,
    });
    expect(app.pageErrors).toEqual([]);
  });
});
