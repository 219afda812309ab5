/**
 * The `scripted` embedding algorithm pinned to exact values, so apps' tests that compare vectors
 * keep passing across releases: FNV-1a buckets of lowercased words, 64 dims, L2-normalized.
 */
import { describe, expect, it } from 'vitest';
import { embedScripted, fnv1a, scriptedEmbedding } from '../../src/engine/scripted/scripted-embedding';

const oneHot = (at: number, length = 64) => Array.from({ length }, (_, i) => (i === at ? 1 : 0));

describe('scriptedEmbedding', () => {
  it('hashes each lowercased word with FNV-1a into one of 64 buckets', () => {
    expect(fnv1a('hello')).toBe(0x4f9f2cab);
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(scriptedEmbedding('hello')).toEqual(oneHot(43));
    expect(scriptedEmbedding('  HeLLo\n')).toEqual(oneHot(43));
  });

  it('counts repeated words and normalizes to unit length', () => {
    const v = scriptedEmbedding('hello hello world');
    const w = fnv1a('world') % 64;
    expect(v[43]).toBeCloseTo(2 / Math.sqrt(5), 12);
    expect(v[w]).toBeCloseTo(1 / Math.sqrt(5), 12);
    expect(Math.hypot(...v)).toBeCloseTo(1, 12);
  });

  it('keeps the first dimensions and renormalizes them; no words is the zero vector', () => {
    expect(scriptedEmbedding('hello', 44)).toEqual(oneHot(43, 44));
    expect(scriptedEmbedding('hello', 43)).toEqual(new Array(43).fill(0));
    expect(scriptedEmbedding('   ')).toEqual(new Array(64).fill(0));
  });

  it('counts words as tokens and refuses more than 64 dimensions', () => {
    expect(embedScripted(['a b', 'c']).tokens).toBe(3);
    expect(() => embedScripted(['a'], 65)).toThrow(/at most 64/);
  });
});
