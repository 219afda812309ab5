/**
 * The remote engine in Chromium through the real service worker: the page starts intab with
 * `startIntab({ remote })` pointing at a real llama-server (scripts/llama-server.mjs), and requests
 * go page → service worker → engine worker → llama-server and back. The key never reaches IndexedDB.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freePort,
  LLAMA_BUILD_MS,
  LLAMA_MODEL_ID,
  type LlamaServer,
  startLlamaServer,
} from '../helpers/llama-server';
import { type AppSession, openApp } from './harness';
import { addRemote, idbDump, streamTypes } from './remote.page';
import { listModels, sdkCreate } from './wllama.page';

const KEY = 'sk-e2e-remote-9d1c';
let llama: LlamaServer;
let app: AppSession & { pageErrors: string[]; consoleLines: string[] };

beforeAll(async () => {
  llama = await startLlamaServer({ apiKey: KEY });
  const options = { remote: { baseURL: llama.baseURL, apiKey: KEY } };
  app = await openApp({
    path: `/tests/e2e/pages/options.html#${encodeURIComponent(JSON.stringify(options))}`,
    testPages: true,
  });
}, LLAMA_BUILD_MS);

afterAll(async () => {
  await app?.close();
  await llama?.stop();
});

describe('remote engine through the real service worker', () => {
  it('lists the server model as remote', async () => {
    expect(await app.page.evaluate(listModels)).toContainEqual(
      expect.objectContaining({ id: LLAMA_MODEL_ID, engine: 'remote' }),
    );
  });

  it('answers JSON and SSE through the service worker', async () => {
    const { response, error } = await app.page.evaluate(sdkCreate, {
      model: LLAMA_MODEL_ID,
      input: 'Hello',
      max_output_tokens: 16,
    });
    expect(error).toBeNull();
    expect(['completed', 'incomplete']).toContain(response?.status);
    const s = await app.page.evaluate(streamTypes, {
      model: LLAMA_MODEL_ID,
      input: 'Hello',
      max_output_tokens: 16,
    });
    expect(s.types[0]).toBe('response.created');
    expect(['response.completed', 'response.incomplete']).toContain(s.types.at(-1));
    expect(s.text.length).toBeGreaterThan(0);
  });

  it('addRemote of a server that is not there fails with a 502 naming its URL', async () => {
    const baseURL = `http://127.0.0.1:${await freePort()}/v1`;
    const { error } = await app.page.evaluate(addRemote, { baseURL, apiKey: 'sk-other-key-5555' });
    expect(error?.message).toContain(baseURL);
    expect(error?.message).not.toContain('sk-other-key-5555');
  });

  it('never writes the key to IndexedDB', async () => {
    const dump = await app.page.evaluate(idbDump);
    expect(dump).toContain('resp_');
    expect(dump).not.toContain(KEY);
  });
});
