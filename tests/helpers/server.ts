/**
 * Test rig: the real Responses core over the scripted engine and a store, reached through the
 * official `openai` SDK (custom fetch) or raw Fetch requests.
 *
 * @example
 * const { client, server } = makeRig();
 * const r = await client.responses.create({ model: 'scripted', input: 'hi' });
 */
import OpenAI from 'openai';
import { createResponsesServer, type ResponsesServerOptions } from '../../src/core';
import { ScriptedEngine } from '../../src/engine/scripted/scripted-engine';
import type { Engine } from '../../src/engine/types';
import { MemoryStore } from '../../src/store/memory-store';
import type { ResponseStore } from '../../src/store/types';

/** What a refused request must leave as it was: {@link storeContents} and a conversation to aim at. */
export { inConversation, seedConversation, storeContents } from './store-contents';

export const BASE = 'http://intab.test/v1';

export function makeRig(
  opts: Partial<ResponsesServerOptions> & { engine?: Engine; store?: ResponseStore } = {},
) {
  const store = opts.store ?? new MemoryStore();
  const server = createResponsesServer({ ...opts, engine: opts.engine ?? new ScriptedEngine(), store });
  const fetch = (input: string | URL | Request, init?: RequestInit) => server.fetch(new Request(input, init));
  const client = new OpenAI({ apiKey: 'intab-test', baseURL: BASE, fetch, maxRetries: 0 });
  /** A raw request against the server: `call('POST', '/responses', body)`. */
  const call = (method: string, path: string, body?: unknown) =>
    server.fetch(
      new Request(`${BASE}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      }),
    );
  return { server, store, client, call };
}

/**
 * Parses an SSE body into `{event, data}` frames, keeping the `event:` line to compare with `type`.
 * Comment frames (`: intab.load …`) are skipped, as every SSE parser skips them.
 */
export async function readSse(res: Response): Promise<{ event: string; data: Record<string, unknown> }[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((f) => f.trim() && !f.split('\n').every((l) => l.startsWith(':')))
    .map((frame) => {
      const lines = frame.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? '';
      const data = lines
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      return { event, data: JSON.parse(data) };
    });
}

/**
 * Every event (or chunk) of an SDK stream, in order: the SDK-side twin of {@link readSse}.
 *
 * @example
 * const events = await readStream(await client.responses.create({ ...body, stream: true }));
 */
export async function readStream<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of stream) items.push(item);
  return items;
}
