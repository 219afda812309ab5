/**
 * Shared by the create-surface integration tests: streaming with spec checks, an engine that says
 * exactly what a test needs, and OpenAI-error assertions.
 *
 * @example
 * const frames = await streamFrames({ model: 'scripted', input: 'hi' });
 */
import { expect } from 'vitest';
import { ScriptedEngine } from '../../src/engine/scripted/scripted-engine';
import type { Engine, EngineChunk } from '../../src/engine/types';
import { makeRig, readSse } from '../helpers/server';
import { validateErrorBody, validateStreamEvent } from '../helpers/spec';

export type Frame = Record<string, unknown> & { type: string };

/** POSTs `body` with `stream: true`; every event must be spec-valid. */
export async function streamFrames(body: Record<string, unknown>, rig = makeRig()): Promise<Frame[]> {
  const frames = await readSse(await rig.call('POST', '/responses', { ...body, stream: true }));
  for (const f of frames) expect(validateStreamEvent(f.data), f.data.type as string).toEqual([]);
  return frames.map((f) => f.data as Frame);
}

/** An engine that says exactly `chunks` (then stops), for what the scripted model never does. */
export function fakeEngine(chunks: EngineChunk[]): Engine {
  const base = new ScriptedEngine();
  return {
    models: () => base.models(),
    load: (id) => base.load(id),
    countTokens: (id, m, t) => base.countTokens(id, m, t),
    async *generate() {
      yield* chunks;
      yield {
        type: 'done',
        finishReason: 'stop',
        usage: { input_tokens: 1, output_tokens: 1, reasoning_tokens: 0 },
      };
    },
  };
}

/** Asserts an OpenAI error body with `status`, `param` (and `code`); returns its message. */
export async function expectError(res: Response, status: number, param: string | null, code?: string) {
  expect(res.status).toBe(status);
  const body = await res.json();
  expect(validateErrorBody(body)).toEqual([]);
  expect(body.error.param).toBe(param);
  if (code) expect(body.error.code).toBe(code);
  return body.error.message as string;
}
