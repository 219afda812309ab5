/**
 * The llama.cpp engine's plumbing: the tokens that are not valid UTF-8 on their own, error mapping,
 * the GGUF header reader, the load parameters and the bounded chunk queue.
 */
import llama3Tokenizer from 'llama3-tokenizer-js';
import { describe, expect, it } from 'vitest';
import { ChunkQueue, TimeoutError, withTimeout } from '../../../src/engine/wllama/chunk-queue';
import { GgufFormatError, parseGgufHeader, readGgufHeader } from '../../../src/engine/wllama/gguf-header';
import { LlamaLog } from '../../../src/engine/wllama/llama-log';
import { byteLevelBytes, invalidUtf8Tokens } from '../../../src/engine/wllama/utf8-tokens';
import {
  isInstanceDead,
  mapGenerateError,
  mapLoadError,
  overflowTokens,
} from '../../../src/engine/wllama/wllama-errors';
import { loadParams } from '../../../src/engine/wllama/wllama-instance';
import { ggufBytes } from '../../helpers/tiny-gguf';

describe('tokens that are not valid UTF-8 on their own', () => {
  it('decodes byte-level BPE pieces', () => {
    expect([...(byteLevelBytes('Ġhi') as Uint8Array)]).toEqual([32, 104, 105]);
    expect(byteLevelBytes('<|eot_id|>')).not.toBeNull();
    expect(byteLevelBytes('ĠÄŁ')).not.toBeNull();
  });

  it('finds the 1,352 of the Llama 3 vocabulary, and SentencePiece byte tokens', () => {
    const ids = invalidUtf8Tokens(llama3Tokenizer.vocabById, 'gpt2');
    expect(ids).toHaveLength(1352);
    for (const id of ids.slice(0, 50)) {
      const bytes = byteLevelBytes(llama3Tokenizer.vocabById[id] as string) as Uint8Array;
      expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes)).toThrow();
    }
    expect(invalidUtf8Tokens(['<0x41>', '<0xE2>', '▁hi', '<0x80>'], 'llama')).toEqual([1, 3]);
  });
});

describe('errors', () => {
  it("turns llama.cpp's context refusal into a 400 with the counts", () => {
    const err = new Error(
      'request (3010 tokens) exceeds the available context size (2048 tokens), try increasing it',
    );
    expect(overflowTokens(err)).toBe(3010);
    expect(mapGenerateError(err, 'tiny')).toMatchObject({
      status: 400,
      code: 'context_length_exceeded',
      param: 'input',
    });
  });

  it('a dead instance is a 500 model_crashed quoting llama.cpp, a silent one a 504', () => {
    const dead = Object.assign(new Error('(ABORT) '), { name: 'RuntimeError' });
    expect(isInstanceDead(dead)).toBe(true);
    const mapped = mapGenerateError(dead, 'tiny', 'Aborted()');
    expect(mapped).toMatchObject({ status: 500, code: 'model_crashed' });
    expect(mapped.message).toContain('llama.cpp said: Aborted()');
    expect(mapGenerateError(new TimeoutError('x'), 'tiny')).toMatchObject({
      status: 504,
      code: 'model_unresponsive',
    });
  });

  it('maps load failures: download, stall, bad file', () => {
    expect(mapLoadError(new TypeError('Failed to fetch'), 'm')).toMatchObject({
      status: 503,
      code: 'model_download_failed',
    });
    expect(mapLoadError(new TimeoutError('x'), 'm')).toMatchObject({
      status: 504,
      code: 'model_load_timeout',
    });
    expect(mapLoadError(new Error('boom'), 'm', 'llama_model_load: error loading model')).toMatchObject({
      status: 500,
      code: 'model_load_failed',
    });
  });

  it("keeps llama.cpp's log and finds the trouble and the device in it", () => {
    const log = new LlamaLog();
    log.logger.debug('load_tensors:          CPU model buffer size =    15.91 MiB');
    const mark = log.mark();
    log.logger.log('slot update');
    log.logger.error('[json.exception.type_error.316] invalid UTF-8 byte');
    expect(log.trouble(mark)).toBe('[json.exception.type_error.316] invalid UTF-8 byte');
    expect(log.device()).toBe('cpu');
    log.logger.debug('load_tensors:   WebGPU model buffer size =    15.91 MiB');
    expect(log.device()).toBe('webgpu');
  });
});

describe('GGUF header reader', () => {
  it('refuses a file that is not GGUF', async () => {
    await expect(readGgufHeader(new Blob([new Uint8Array(64)]))).rejects.toThrow(GgufFormatError);
  });

  it('reads more when the metadata is longer than the first window', async () => {
    const key = 'general.name';
    const value = 'x'.repeat(5000);
    const parts = ggufBytes([[key, value]]);
    const blob = new Blob([parts]);
    const header = await readGgufHeader(blob, 64);
    expect(header.metadata.get(key)).toBe(value);
    expect(() => parseGgufHeader(parts.subarray(0, 100))).toThrow();
  });
});

describe('engine plumbing', () => {
  it('loads with Jinja templates, raw output, bounded batches, and the chosen device', () => {
    expect(loadParams({ contextSize: 2048, device: 'cpu', threads: 2, embeddings: false })).toMatchObject({
      n_ctx: 2048,
      n_batch: 512,
      n_threads: 2,
      n_gpu_layers: 0,
      jinja: true,
      reasoning_format: 'none',
      skip_chat_parsing: true,
    });
    expect(loadParams({ contextSize: 1, device: 'webgpu', threads: 1, embeddings: 'mean' })).toMatchObject({
      n_gpu_layers: 999,
      embeddings: true,
      pooling_type: 'mean',
    });
  });

  it('a chunk queue reads in order, notices silence, ends, and counts what came after an abort', async () => {
    const q = new ChunkQueue<number>();
    q.push(1);
    expect(await q.next(10)).toEqual({ kind: 'item', value: 1 });
    expect(await q.next(20)).toEqual({ kind: 'timeout' });
    q.markAbort();
    q.push(2);
    expect(q.pushedAfterAbort).toBe(1);
    q.fail(new Error('x'));
    expect(await q.next(10)).toEqual({ kind: 'item', value: 2 });
    expect((await q.next(10)).kind).toBe('error');
    const ac = new AbortController();
    const waiting = new ChunkQueue<number>().next(10_000, ac.signal);
    ac.abort();
    expect(await waiting).toEqual({ kind: 'aborted' });
    await expect(withTimeout(new Promise(() => {}), 10, 'x')).rejects.toThrow(TimeoutError);
  });
});
