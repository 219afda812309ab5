/**
 * The remote engine when the server refuses, is not there, or goes away mid-answer, and its
 * embeddings: each against a real llama-server (scripts/llama-server.mjs). Errors say who failed,
 * and never carry the key.
 */
import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompositeEngine } from '../../src/engine/composite-engine';
import { RemoteEngine } from '../../src/engine/remote';
import { ScriptedEngine } from '../../src/engine/scripted/scripted-engine';
import {
  freePort,
  LLAMA_BUILD_MS,
  LLAMA_MODEL_ID,
  type LlamaServer,
  startLlamaServer,
} from '../helpers/llama-server';
import { makeRig } from '../helpers/server';

const KEY = 'sk-right-key-77aa';
const WRONG = 'sk-wrong-key-0b0b';

let llama: LlamaServer;
let embedder: LlamaServer;

beforeAll(async () => {
  [llama, embedder] = await Promise.all([
    startLlamaServer({ apiKey: KEY }),
    startLlamaServer({ embeddings: true }),
  ]);
}, LLAMA_BUILD_MS);

afterAll(async () => {
  await Promise.all([llama?.stop(), embedder?.stop()]);
});

function rigFor(servers: ConstructorParameters<typeof RemoteEngine>[0]) {
  return makeRig({ engine: new CompositeEngine([new ScriptedEngine(), new RemoteEngine(servers)]) });
}

async function apiError(p: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OpenAI.APIError);
  return err as InstanceType<typeof OpenAI.APIError>;
}

describe('remote engine failures against a real llama-server', () => {
  it('a wrong API key is a 401 that says the remote server refused it, without the key', async () => {
    const { client } = rigFor({
      servers: [{ baseURL: llama.baseURL, apiKey: WRONG, models: [LLAMA_MODEL_ID] }],
    });
    const err = await apiError(
      client.responses.create({ model: LLAMA_MODEL_ID, input: 'hi', max_output_tokens: 16 }),
    );
    expect(err.status).toBe(401);
    expect(err.message).toContain('refused the API key');
    expect(err.message).toContain(llama.baseURL);
    expect(err.message).not.toContain(WRONG);
  });

  it('a server that was never started is a 502 naming its URL, not a timeout', async () => {
    const baseURL = `http://127.0.0.1:${await freePort()}/v1`;
    const { client } = rigFor({ servers: [{ baseURL, apiKey: KEY, models: ['gone'] }] });
    const err = await apiError(
      client.responses.create({ model: 'gone', input: 'hi', max_output_tokens: 16 }),
    );
    // A refused connection, not a timeout: 502 (a wait that ran out would be a 504).
    expect(err.status).toBe(502);
    expect(err.message).toContain(baseURL);
    expect(err.message).not.toContain(KEY);
  });

  it('the server stopped mid-stream → response.failed with a message naming it', async () => {
    const doomed = await startLlamaServer();
    try {
      const { client } = rigFor({ servers: [{ baseURL: doomed.baseURL, models: [LLAMA_MODEL_ID] }] });
      const stream = await client.responses.create({
        model: LLAMA_MODEL_ID,
        input: 'Keep going',
        max_output_tokens: 3500,
        stream: true,
      });
      const events: ResponseStreamEvent[] = [];
      for await (const e of stream) {
        events.push(e);
        if (e.type === 'response.output_text.delta' && events.filter((x) => x.type === e.type).length === 3)
          doomed.proc.kill('SIGKILL');
      }
      const last = events.at(-1);
      expect(last?.type).toBe('response.failed');
      const error = (last as { response: { error: { message: string } } }).response.error;
      expect(error.message).toContain(doomed.baseURL);
    } finally {
      await doomed.stop();
    }
  });

  it('embeds through the server /v1/embeddings (mean pooling)', async () => {
    const { client } = rigFor({ servers: [{ baseURL: embedder.baseURL }] });
    const r = await client.embeddings.create({ model: LLAMA_MODEL_ID, input: ['hello world', 'good night'] });
    expect(r.data).toHaveLength(2);
    expect(r.data[0]?.embedding).toHaveLength(64);
    expect(r.data[0]?.embedding).not.toEqual(r.data[1]?.embedding);
    expect(r.usage.prompt_tokens).toBeGreaterThan(0);
  });
});
