/**
 * Page-side scripts for file-search.test.ts (each self-contained, run through `page.evaluate`): the
 * official SDK in the page (`window.OpenAI`, set by tests/e2e/pages/options.ts) uploads files into a
 * vector store through the real service worker, reads the store back after a reload, and streams
 * `responses.create` with the hosted `file_search` tool. Every return value is plain JSON.
 */

/** A text file the page uploads: its name and contents. */
export interface PageFile {
  name: string;
  text: string;
}

/** What `uploadToStore` saw: the store, the finished batch and the files' ids by name. */
export interface Uploaded {
  vectorStoreId: string;
  batchStatus: string;
  batchCounts: Record<string, number>;
  fileIds: Record<string, string>;
}

/** Uploads `files` and indexes them with `vectorStores.fileBatches.uploadAndPoll`. */
export async function uploadToStore(files: PageFile[]): Promise<Uploaded> {
  const OpenAI = (window as unknown as { OpenAI: typeof import('openai').default }).OpenAI;
  const client = new OpenAI({
    baseURL: `${location.origin}/v1`,
    apiKey: 'intab',
    dangerouslyAllowBrowser: true,
  });
  const vs = await client.vectorStores.create({ name: 'e2e file_search' });
  const batch = await client.vectorStores.fileBatches.uploadAndPoll(
    vs.id,
    { files: files.map((f) => new File([f.text], f.name, { type: 'text/plain' })) },
    { pollIntervalMs: 50 },
  );
  const fileIds: Record<string, string> = {};
  for (const f of (await client.files.list()).data) fileIds[f.filename] = f.id;
  return {
    vectorStoreId: vs.id,
    batchStatus: batch.status,
    batchCounts: { ...batch.file_counts },
    fileIds,
  };
}

/** What the origin still holds: files by name, the store's status and counts, its files' statuses. */
export async function storedState(vectorStoreId: string): Promise<{
  files: Record<string, string>;
  store: { status: string; file_counts: Record<string, number> };
  storeFiles: string[];
}> {
  const OpenAI = (window as unknown as { OpenAI: typeof import('openai').default }).OpenAI;
  const client = new OpenAI({
    baseURL: `${location.origin}/v1`,
    apiKey: 'intab',
    dangerouslyAllowBrowser: true,
  });
  const files: Record<string, string> = {};
  for (const f of (await client.files.list()).data) files[f.filename] = f.id;
  const store = await client.vectorStores.retrieve(vectorStoreId);
  const storeFiles = (await client.vectorStores.files.list(vectorStoreId)).data.map((f) => f.status);
  return { files, store: { status: store.status, file_counts: { ...store.file_counts } }, storeFiles };
}

/** Streams one `responses.create` with `body` (plus `stream: true`) and returns every event. */
export async function streamResponse(body: Record<string, unknown>): Promise<Record<string, unknown>[]> {
  const OpenAI = (window as unknown as { OpenAI: typeof import('openai').default }).OpenAI;
  const client = new OpenAI({
    baseURL: `${location.origin}/v1`,
    apiKey: 'intab',
    dangerouslyAllowBrowser: true,
  });
  const params = {
    ...body,
    stream: true,
  } as unknown as import('openai/resources/responses/responses').ResponseCreateParamsStreaming;
  const stream = await client.responses.create(params);
  const events: Record<string, unknown>[] = [];
  for await (const e of stream) events.push(JSON.parse(JSON.stringify(e)));
  return events;
}
