import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/common/api-error';
import {
  type AttributeFilter,
  MAX_FILTER_DEPTH,
  MAX_FILTER_NODES,
  matchesFilter,
  parseFilters,
} from '../../../src/core/vector-stores';
import { cpuNow } from '../../helpers/cpu-time';

const KEYS = ['a', 'b', 'c'];
const scalar = fc.oneof(fc.constantFrom('x', 'y', 'z'), fc.integer({ min: -3, max: 3 }), fc.boolean());
const listValue = fc.array(fc.oneof(fc.constantFrom('x', 'y', 'z'), fc.integer({ min: -3, max: 3 })), {
  maxLength: 4,
});
const attributes = fc.dictionary(fc.constantFrom(...KEYS), scalar, { maxKeys: 3 });
const comparison = fc.oneof(
  fc.record({
    key: fc.constantFrom(...KEYS),
    type: fc.constantFrom('eq', 'ne', 'gt', 'gte', 'lt', 'lte' as const),
    value: scalar,
  }),
  fc.record({ key: fc.constantFrom(...KEYS), type: fc.constantFrom('in', 'nin' as const), value: listValue }),
) as fc.Arbitrary<AttributeFilter>;
const { tree } = fc.letrec<{ tree: AttributeFilter }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    comparison,
    fc.record({
      type: fc.constantFrom('and', 'or' as const),
      filters: fc.array(tie('tree'), { minLength: 1, maxLength: 3 }),
    }) as fc.Arbitrary<AttributeFilter>,
  ),
}));

function depthOf(f: AttributeFilter): number {
  return 'filters' in f ? 1 + Math.max(...f.filters.map(depthOf)) : 0;
}

describe('the filter evaluator (fast-check, fixed seeds)', () => {
  it('ne/nin are eq/in negated where the key exists, and nothing matches a missing key', () => {
    fc.assert(
      fc.property(attributes, fc.constantFrom(...KEYS), scalar, listValue, (attrs, key, v, list) => {
        const has = Object.hasOwn(attrs, key);
        const eq = matchesFilter(attrs, { key, type: 'eq', value: v });
        expect(matchesFilter(attrs, { key, type: 'ne', value: v })).toBe(has && !eq);
        const inList = matchesFilter(attrs, { key, type: 'in', value: list });
        expect(matchesFilter(attrs, { key, type: 'nin', value: list })).toBe(has && !inList);
        if (!has)
          for (const type of ['eq', 'gt', 'gte', 'lt', 'lte'] as const)
            expect(matchesFilter(attrs, { key, type, value: v })).toBe(false);
      }),
      { numRuns: 500, seed: 22 },
    );
  });

  it('order comparisons agree with each other on comparable values and are false across types', () => {
    fc.assert(
      fc.property(attributes, fc.constantFrom(...KEYS), scalar, (attrs, key, v) => {
        const m = (type: 'gt' | 'gte' | 'lt' | 'lte' | 'eq') => matchesFilter(attrs, { key, type, value: v });
        const actual = attrs[key];
        const comparable = actual !== undefined && typeof actual === typeof v && typeof v !== 'boolean';
        if (!comparable) {
          expect([m('gt'), m('gte'), m('lt'), m('lte')]).toEqual([false, false, false, false]);
          return;
        }
        expect(m('gte')).toBe(m('gt') || m('eq'));
        expect(m('lte')).toBe(m('lt') || m('eq'));
        expect(m('gt')).toBe(!m('lte'));
      }),
      { numRuns: 500, seed: 22 },
    );
  });

  it('and is every, or is some, at any depth; a parsed tree evaluates as the tree it came from', () => {
    fc.assert(
      fc.property(tree, attributes, (filter, attrs) => {
        if (depthOf(filter) > MAX_FILTER_DEPTH) return;
        const parsed = parseFilters(JSON.parse(JSON.stringify(filter)), 'filters');
        expect(parsed).toEqual(filter);
        const result = matchesFilter(attrs, parsed);
        if (filter.type === 'and') expect(result).toBe(filter.filters.every((f) => matchesFilter(attrs, f)));
        if (filter.type === 'or') expect(result).toBe(filter.filters.some((f) => matchesFilter(attrs, f)));
      }),
      { numRuns: 400, seed: 22 },
    );
  });

  it('anything else is a 400 ApiError with a param under `filters`, never another error', () => {
    fc.assert(
      fc.property(fc.anything({ maxDepth: 4 }), (raw) => {
        try {
          parseFilters(raw, 'filters');
        } catch (err) {
          expect(err).toBeInstanceOf(ApiError);
          expect((err as ApiError).status).toBe(400);
          expect((err as ApiError).param).toMatch(/^filters/);
        }
      }),
      { numRuns: 500, seed: 22 },
    );
  });

  it('a filter at the budgets (depth and node count) parses and evaluates in linear time', () => {
    // The widest tree the budgets allow: MAX_FILTER_NODES comparisons under one `and` at full depth.
    let filter: unknown = {
      type: 'or',
      filters: Array.from({ length: MAX_FILTER_NODES }, (_, i) => ({ key: 'a', type: 'eq', value: i })),
    };
    for (let d = 1; d < MAX_FILTER_DEPTH; d++) filter = { type: 'and', filters: [filter] };
    const t0 = cpuNow();
    const parsed = parseFilters(filter, 'filters');
    let hits = 0;
    for (let i = 0; i < 2000; i++) if (matchesFilter({ a: i % 300 }, parsed)) hits++;
    const ms = cpuNow() - t0;
    // A hit is an `a` among the values 0..MAX_FILTER_NODES-1.
    expect(hits).toBe(
      Array.from({ length: 2000 }, (_, i) => i % 300).filter((a) => a < MAX_FILTER_NODES).length,
    );
    // 2000 evaluations of 256 comparisons take ~10 ms; a blow-up would take seconds.
    expect(ms).toBeLessThan(1000);
    // One comparison more than the budget, or one level deeper, is refused.
    const wide = Array.from({ length: MAX_FILTER_NODES + 1 }, () => ({ key: 'a', type: 'eq', value: 1 }));
    expect(() => parseFilters({ type: 'or', filters: wide }, 'filters')).toThrow(/too many filters/);
    expect(() => parseFilters({ type: 'or', filters: [filter] }, 'filters')).toThrow(/nest too deeply/);
  });
});
