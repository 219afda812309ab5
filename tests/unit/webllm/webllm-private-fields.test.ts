/**
 * Exact token counts, `cached_tokens` and "is the model loaded" read web-llm's TypeScript-private
 * fields (src/engine/webllm/webllm-tokens.ts): `MLCEngine.loadedModelIdToPipeline`, and on the
 * `LLMChatPipeline` in it `tokenizer` (web-tokenizers' `Tokenizer`, its `encode`) and
 * `filledKVCacheLength`. The fakes provide them whatever web-llm does, and intab falls back to
 * estimates without a word when they move, so these tests read the installed @mlc-ai/web-llm itself
 * (a live `MLCEngine`, which needs no GPU to construct, and the bundle's source where a pipeline
 * needs one): an upgrade that renames a field fails here.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { MLCEngine } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import { filledContext, isPipelineLoaded, loadedTokenizer } from '../../../src/engine/webllm/webllm-tokens';

const require = createRequire(import.meta.url);
const bundle = readFileSync(require.resolve('@mlc-ai/web-llm'), 'utf8');
const reader = readFileSync(new URL('../../../src/engine/webllm/webllm-tokens.ts', import.meta.url), 'utf8');

/** The source of `class name { … }` in the bundle: up to the next top-level class or function. */
function classSource(name: string): string {
  const start = bundle.indexOf(`\nclass ${name} {`);
  expect(start, `class ${name} in web-llm's bundle`).toBeGreaterThan(0);
  const rest = bundle.slice(start + 1);
  const end = rest.slice(1).search(/\n(class|function) /);
  return end < 0 ? rest : rest.slice(0, end + 1);
}

const MODEL = 'Qwen3-0.6B-q4f16_1-MLC';

describe('the private fields intab reads are where web-llm keeps them', () => {
  it('intab reads these three names, and nothing else of web-llm’s internals', () => {
    const read = [...reader.matchAll(/\?\.(\w+)/g)].map((m) => m[1]);
    expect(new Set(read)).toEqual(new Set(['loadedModelIdToPipeline', 'tokenizer', 'filledKVCacheLength']));
  });

  it('a live MLCEngine holds its pipelines in loadedModelIdToPipeline, a Map by model id', () => {
    const engine = new MLCEngine();
    const pipelines = (engine as unknown as { loadedModelIdToPipeline?: unknown }).loadedModelIdToPipeline;
    expect(pipelines).toBeInstanceOf(Map);
    // Told apart from "the field moved", which reads as loaded (only a known unload forces a reload).
    expect(isPipelineLoaded(engine, MODEL)).toBe(false);
    const encode = (text: string) => Int32Array.from(text, (c) => c.charCodeAt(0));
    (pipelines as Map<string, unknown>).set(MODEL, { tokenizer: { encode }, filledKVCacheLength: 42 });
    expect(isPipelineLoaded(engine, MODEL)).toBe(true);
    expect(loadedTokenizer(engine, MODEL)?.encode('abc')).toHaveLength(3);
    expect(filledContext(engine, MODEL)).toBe(42);
  });

  it('reload puts an LLMChatPipeline built on the loaded tokenizer into that map', () => {
    const engine = classSource('MLCEngine');
    expect(engine).toContain('this.loadedModelIdToPipeline = new Map();');
    expect(engine).toMatch(/const tokenizer = yield asyncLoadTokenizer\(/);
    expect(engine).toMatch(/newPipeline = new LLMChatPipeline\(tvm, tokenizer,/);
    expect(engine).toContain('this.loadedModelIdToPipeline.set(modelId, newPipeline);');
  });

  it('LLMChatPipeline keeps the tokenizer as `tokenizer` and counts the KV cache in filledKVCacheLength', () => {
    const pipeline = classSource('LLMChatPipeline');
    expect(pipeline).toMatch(/constructor\(tvm, tokenizer, config/);
    expect(pipeline).toContain('this.tokenizer = tokenizer;');
    expect(pipeline).toContain('this.tokenizer.encode(');
    // Prefill adds the prompt it fed, each decode step one token; a reset empties it.
    expect(pipeline).toMatch(/this\.filledKVCacheLength \+= inputLength;/);
    expect(pipeline).toMatch(/this\.filledKVCacheLength \+= 1;/);
    expect(pipeline).toContain('this.filledKVCacheLength = 0;');
  });

  it('the tokenizer is web-tokenizers’ Tokenizer: encode(text) gives the ids as an array view', () => {
    expect(bundle).toContain('return libExports.Tokenizer.fromJSON(model);');
    expect(bundle).toMatch(
      /Tokenizer\.prototype\.encode = function \(text\) \{\s*var ids = this\.handle\.Encode\(text\);\s*var arr = binding\.vecIntToView\(ids\)\.slice\(\);/,
    );
  });

  it('the typings still call them private fields of those classes (a public API would retire these reads)', () => {
    const lib = (file: string) => readFileSync(require.resolve(`@mlc-ai/web-llm/lib/${file}`), 'utf8');
    expect(lib('engine.d.ts')).toContain('private loadedModelIdToPipeline;');
    expect(lib('llm_chat.d.ts')).toContain('private tokenizer;');
    expect(lib('llm_chat.d.ts')).toContain('private filledKVCacheLength;');
  });
});
