/**
 * An e2e page for the vector stores (issue 22): it starts intab (so `/v1/vector_stores` answers
 * through the real service worker and engine worker), and exposes `window.vectorStoresInPage()`,
 * which runs a Responses core in this page over Chromium's own IndexedDB with a Files API double (a
 * Map), because the Files API is not there yet to feed the engine worker's stores.
 */
import OpenAI from 'openai';
import { type IntabClient, startIntab } from '../../../src/client';
import { invalidRequest } from '../../../src/common/api-error';
import { createResponsesServer } from '../../../src/core';
import { ScriptedEngine } from '../../../src/engine/scripted/scripted-engine';
import { openIdbStore } from '../../../src/store';

declare global {
  interface Window {
    intab: IntabClient;
    vectorStoresInPage: () => Promise<Record<string, unknown>>;
  }
}

window.intab = startIntab();

const DOCS: Record<string, [string, string]> = {
  'file-pump': ['pump.txt', 'The pump pushes water uphill through the green pipe.'],
  'file-song': ['song.txt', 'A quiet song about mountains and snow.'],
};

/** JavaScript chunks this page has fetched so far (to see when o200k's tables load). */
const scripts = () =>
  performance
    .getEntriesByType('resource')
    .map((e) => e.name)
    .filter((n) => n.endsWith('.js'));

window.vectorStoresInPage = async () => {
  const dbName = `vs-e2e-${Math.random().toString(36).slice(2)}`;
  const store = await openIdbStore({ name: dbName });
  const server = createResponsesServer({
    engine: new ScriptedEngine(),
    store,
    readFile: async (id, param) => {
      const doc = DOCS[id];
      if (!doc) throw invalidRequest(param, `No such File object: ${id}`);
      return { id, filename: doc[0], purpose: 'assistants', bytes: new TextEncoder().encode(doc[1]) };
    },
  });
  const client = new OpenAI({
    apiKey: 'e2e',
    baseURL: 'http://in-page.invalid/v1', // never fetched: the custom fetch hands each request to the core
    fetch: (input, init) => server.fetch(new Request(input, init)),
    maxRetries: 0,
    dangerouslyAllowBrowser: true,
  });
  const before = scripts();
  const vs = await client.vectorStores.create({ file_ids: Object.keys(DOCS) });
  let status = vs.status;
  for (let i = 0; i < 200 && status === 'in_progress'; i++) {
    await new Promise((r) => setTimeout(r, 25));
    status = (await client.vectorStores.retrieve(vs.id)).status;
  }
  const after = scripts();
  const done = await client.vectorStores.retrieve(vs.id);
  const page = await client.vectorStores.search(vs.id, { query: 'uphill pump' });
  const deleted = await client.vectorStores.delete(vs.id);
  // Count what is left of the store in the raw object stores, on a connection of our own.
  const raw = await new Promise<number>((resolve, reject) => {
    const open = indexedDB.open(dbName);
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const tx = db.transaction(['vector_chunks', 'vector_vectors', 'vector_store_files']);
      const range = IDBKeyRange.bound([vs.id], [vs.id, []]);
      const counts = ['vector_chunks', 'vector_vectors', 'vector_store_files'].map((n) =>
        tx.objectStore(n).count(range),
      );
      tx.oncomplete = () => {
        db.close();
        resolve(counts.reduce((sum, r) => sum + r.result, 0));
      };
    };
  });
  store.close();
  return {
    status,
    fileCounts: done.file_counts,
    first: page.data[0]?.file_id ?? null,
    firstText: page.data[0]?.content[0]?.text ?? null,
    deleted: deleted.deleted,
    raw,
    o200kBefore: before.some((n) => n.includes('o200k')),
    o200kAfter: after.some((n) => n.includes('o200k')),
  };
};
