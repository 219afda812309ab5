import { describe, expect, it } from 'vitest';
import { StallTimeoutError, withStallTimeout } from '../../../src/engine/stall-timeout';
import { Turns } from '../../../src/engine/turns';
import { mapGenerateError, mapLoadError } from '../../../src/engine/webllm/webllm-errors';
import { ThinkSplitter } from '../../../src/engine/webllm/webllm-think';

const named = (name: string, message = 'boom') => Object.assign(new Error(message), { name });

describe('ThinkSplitter', () => {
  it('handles tags split across deltas', () => {
    const s = new ThinkSplitter();
    const parts = ['  <thi', 'nk>\nA', 'B</thi', 'nk>', '\n\nC', 'D'].map((d) => s.push(d));
    parts.push(s.flush());
    expect(parts.map((p) => p.reasoning).join('')).toBe('AB');
    expect(parts.map((p) => p.answer).join('')).toBe('CD');
    // Nothing of the tag leaks into either side.
    expect(parts.some((p) => p.reasoning.includes('<') || p.answer.includes('<'))).toBe(false);
  });

  it('passes a reply without a think block through untouched', () => {
    const s = new ThinkSplitter();
    expect([s.push('<b>'), s.push('bold</b>')].map((p) => p.answer).join('')).toBe('<b>bold</b>');
  });

  it('keeps an unclosed block as reasoning at the end', () => {
    const s = new ThinkSplitter();
    const first = s.push('<think>long thought </th');
    expect(first.reasoning).toBe('long thought');
    expect(s.flush()).toEqual({ reasoning: ' </th', answer: '', thinking: true });
  });
});

describe('error mapping', () => {
  it('maps web-llm errors by name', () => {
    expect(mapGenerateError(named('ContextWindowSizeExceededError')).code).toBe('context_length_exceeded');
    expect(mapGenerateError(named('WebGPUNotAvailableError')).status).toBe(503);
    expect(mapGenerateError(named('DeviceLostError')).code).toBe('webgpu_device_lost');
    expect(mapGenerateError(named('MultipleTextContentError')).status).toBe(400);
    expect(mapGenerateError(named('GrammarMatcherInitError')).param).toBe('text.format');
    expect(mapGenerateError(new Error('weird')).status).toBe(500);
    expect(mapGenerateError('a string').message).toBe('a string');
  });

  it('maps load failures: network and cache errors are 503 naming the model', () => {
    for (const err of [
      new TypeError('NetworkError when attempting to fetch resource.'),
      named('QuotaExceededError', 'The quota has been exceeded.'),
      new Error('ArtifactOPFSCache: Unable to fetch https://x, received status 404'),
    ]) {
      const e = mapLoadError(err, 'M');
      expect([e.status, e.code]).toEqual([503, 'model_download_failed']);
      expect(e.message).toContain("'M'");
    }
    expect(mapLoadError(named('ModelNotFoundError'), 'M')).toMatchObject({
      status: 400,
      code: 'model_not_found',
    });
    expect(mapLoadError(named('ShaderF16SupportError'), 'M').code).toBe('webgpu_unavailable');
    expect(mapLoadError(new Error('tvm exploded'), 'M').status).toBe(500);
  });
});

describe('Gate and withStallTimeout', () => {
  it('runs jobs one at a time in order, and skips a waiter that aborts', async () => {
    const gate = new Turns();
    const order: string[] = [];
    const first = await gate.acquire();
    const ac = new AbortController();
    const skipped = gate.acquire(ac.signal);
    const third = gate.acquire().then((release) => {
      order.push('third');
      release?.();
    });
    ac.abort();
    expect(await skipped).toBeNull();
    order.push('first');
    first?.();
    await third;
    expect(order).toEqual(['first', 'third']);
  });

  it('fails on silence, not on duration', async () => {
    await expect(withStallTimeout(() => new Promise(() => {}), 20)).rejects.toBeInstanceOf(StallTimeoutError);
    const slow = withStallTimeout(async (bump) => {
      for (let i = 0; i < 5; i++) {
        await new Promise((r) => setTimeout(r, 10));
        bump();
      }
      return 'ok';
    }, 25);
    await expect(slow).resolves.toBe('ok');
  });
});
