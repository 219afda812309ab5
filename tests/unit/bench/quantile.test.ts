/**
 * The bench reads its figures with one quantile rule (issue 36): nearest rank, in bench/stats.mjs,
 * which every other bench module imports rather than ranking samples its own way.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quantile } from '../../../bench/stats.mjs';

const BENCH = join(import.meta.dirname, '../../../bench');
const q = quantile as (values: number[], q: number) => number;

describe('the bench’s quantile', () => {
  it('is the nearest rank: the smallest sample with at least q of them at or below it', () => {
    const ten = [9, 0, 8, 1, 7, 2, 6, 3, 5, 4];
    expect(q(ten, 0.5)).toBe(4);
    expect(q(ten, 0.25)).toBe(2);
    expect(q(ten, 0.75)).toBe(7);
    expect(q(ten, 0.9)).toBe(8);
    expect(q([3, 1, 2], 0.75)).toBe(3);
    expect(q([1], 0.1)).toBe(1);
    expect(q([], 0.5)).toBeNaN();
  });

  it('is defined once, in stats.mjs, and the other modules that rank samples import it', () => {
    const modules = readdirSync(BENCH).filter((f) => /\.(mjs|ts)$/.test(f));
    const ranking = modules.filter((f) =>
      /\.sort\(\(a, b\) => a - b\)/.test(readFileSync(join(BENCH, f), 'utf8')),
    );
    expect(ranking).toEqual(['stats.mjs']);
    const users = modules.filter((f) => /\bquantile\(/.test(readFileSync(join(BENCH, f), 'utf8')));
    for (const f of users.filter((f) => f !== 'stats.mjs'))
      expect(readFileSync(join(BENCH, f), 'utf8')).toMatch(
        /import \{[^}]*\bquantile\b[^}]*\} from '\.\/stats\.mjs'/,
      );
    expect(users.length).toBeGreaterThan(3);
  });
});
