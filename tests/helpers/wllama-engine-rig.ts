/**
 * A `WllamaEngine` over fake `Wllama`s (tests/helpers/wllama-fakes.ts): one tiny GGUF model `m`,
 * no WebGPU, and every fake it makes kept in order, for the engine's unit tests.
 */
import type { EngineChunk, GenerateRequest } from '../../src/engine/types';
import { WllamaEngine } from '../../src/engine/wllama';
import type { WllamaEngineOptions } from '../../src/engine/wllama/wllama-options';
import { tinyGguf } from './tiny-gguf';
import { FakeWllama } from './wllama-fakes';

/** The engine's options over the rig's defaults, and the tokens each fake streams. */
export interface FakeWllamaEngineOptions extends WllamaEngineOptions {
  /** What each fake streams (default `['Hel', 'lo']`). */
  tokens?: string[];
}

/**
 * @example
 * const { engine, fakes } = fakeWllamaEngine({ maxQueue: 2 });
 * await engine.load('m');
 * (fakes[0] as FakeWllama).tokenMs = 30;
 */
export function fakeWllamaEngine(opts: FakeWllamaEngineOptions = {}) {
  const { tokens = ['Hel', 'lo'], ...options } = opts;
  const fakes: FakeWllama[] = [];
  const engine = new WllamaEngine({
    models: [{ id: 'm', files: [tinyGguf()] }],
    stallTimeoutMs: 2_000,
    hasWebGpuF16: async () => false,
    createWllama: (config) => {
      const fake = new FakeWllama({ tokens, logger: config.logger });
      fakes.push(fake);
      return fake;
    },
    ...options,
  });
  return { engine, fakes };
}

/** Every chunk of one generation, to its end. */
export async function runEngine(
  engine: WllamaEngine,
  r: GenerateRequest,
  signal = new AbortController().signal,
): Promise<EngineChunk[]> {
  const chunks: EngineChunk[] = [];
  for await (const c of engine.generate(r, signal)) chunks.push(c);
  return chunks;
}
