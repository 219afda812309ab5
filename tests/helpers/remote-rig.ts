/**
 * The remote engine's unit rig: a RemoteEngine over a fake OpenAI-compatible server (a `fetch`
 * function, tests/helpers/fake-chat-server.ts), with one model `m` sent upstream as `up-m`.
 */
import { expect } from 'vitest';
import { ApiError } from '../../src/common/api-error';
import { RemoteEngine } from '../../src/engine/remote';
import type { EngineChunk, GenerateRequest } from '../../src/engine/types';
import { type FakeAnswer, fakeChatServer } from './fake-chat-server';
import { generateRequest } from './generate-request';

export const KEY = 'sk-secret-key-1234';

export function rig(
  answer: FakeAnswer | ((c: { url: string }) => FakeAnswer),
  extra: { stallMs?: number; firstByteTimeoutMs?: number } = {},
) {
  const fake = fakeChatServer(answer);
  const engine = new RemoteEngine({
    servers: [
      {
        baseURL: `${fake.baseURL}/`,
        apiKey: KEY,
        models: [{ id: 'm', model: 'up-m' }],
        firstByteTimeoutMs: extra.firstByteTimeoutMs,
      },
    ],
    fetch: fake.fetch,
    stallMs: extra.stallMs,
  });
  return { fake, engine };
}

export async function collect(
  engine: RemoteEngine,
  req: Partial<GenerateRequest> = {},
  signal = new AbortController().signal,
) {
  const out: EngineChunk[] = [];
  for await (const c of engine.generate(generateRequest({ model: 'm', ...req }), signal)) out.push(c);
  return out;
}

export async function failure(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

export const stop = { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] };
export const usage = {
  choices: [],
  usage: { prompt_tokens: 7, completion_tokens: 2, completion_tokens_details: { reasoning_tokens: 1 } },
};
