import type { Plugin } from 'vite';
import { describe, expect, it } from 'vitest';
import { intab, O200K_CHUNK, WEB_LLM_CHUNK } from '../../../src/vite/plugin';

/** The engine worker's chunk namer, as the `intab:worker` plugin hands it to Rolldown. */
function chunkName(moduleIds: string[]): string {
  const worker = intab().find((p) => p.name === 'intab:worker') as Plugin;
  type WorkerConfig = { worker: { rolldownOptions: { output: { chunkFileNames: (c: unknown) => string } } } };
  const config = (worker.config as () => WorkerConfig)();
  return config.worker.rolldownOptions.output.chunkFileNames({ moduleIds });
}

describe('the engine worker’s lazy chunks', () => {
  it('gives o200k_base (vector store chunking) a chunk of its own, which the precache leaves out', () => {
    expect(chunkName(['/app/node_modules/gpt-tokenizer/esm/encoding/o200k_base.js'])).toBe(O200K_CHUNK);
    expect(chunkName(['/app/node_modules/@mlc-ai/web-llm/lib/index.js'])).toBe(WEB_LLM_CHUNK);
    expect(chunkName(['/app/src/core/vector-stores/search.ts'])).toBe('assets/[name]-[hash].js');
  });
});
