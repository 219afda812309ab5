import type { ComparisonFilter, CompoundFilter } from 'openai/resources/shared';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_FILTER_DEPTH } from '../../src/core/vector-stores';
import { TestFiles } from '../helpers/file-reader';
import { makeRig } from '../helpers/server';

/** Four files with the same words (so every one is a hit) and different attributes. */
const ATTRS: Record<string, Record<string, string | number | boolean>> = {
  'file-a': { year: 2021, lang: 'en', draft: true },
  'file-b': { year: 2022, lang: 'fr', draft: false },
  'file-c': { year: 2023, lang: 'en' },
  'file-d': { year: 2024, lang: 'de', draft: false },
};

const files = new TestFiles(
  Object.fromEntries(Object.keys(ATTRS).map((id) => [id, [`${id}.txt`, `report about rivers ${id}`]])),
);
const { client } = makeRig({ readFile: files.reader });
let vsId = '';

beforeAll(async () => {
  const vs = await client.vectorStores.create({});
  const batch = await client.vectorStores.fileBatches.createAndPoll(
    vs.id,
    { files: Object.entries(ATTRS).map(([file_id, attributes]) => ({ file_id, attributes })) },
    { pollIntervalMs: 5 },
  );
  expect(batch.file_counts.completed).toBe(4);
  vsId = vs.id;
});

async function matching(filters: ComparisonFilter | CompoundFilter): Promise<string[]> {
  const page = await client.vectorStores.search(vsId, { query: 'report about rivers', filters });
  return page.data.map((h) => h.file_id).sort();
}

describe('search filters on attributes', () => {
  it.each<[string, ComparisonFilter, string[]]>([
    ['eq', { key: 'lang', type: 'eq', value: 'en' }, ['file-a', 'file-c']],
    ['ne', { key: 'lang', type: 'ne', value: 'en' }, ['file-b', 'file-d']],
    ['gt', { key: 'year', type: 'gt', value: 2022 }, ['file-c', 'file-d']],
    ['gte', { key: 'year', type: 'gte', value: 2022 }, ['file-b', 'file-c', 'file-d']],
    ['lt', { key: 'year', type: 'lt', value: 2022 }, ['file-a']],
    ['lte', { key: 'year', type: 'lte', value: 2022 }, ['file-a', 'file-b']],
    ['in', { key: 'lang', type: 'in', value: ['fr', 'de'] }, ['file-b', 'file-d']],
    ['nin', { key: 'lang', type: 'nin', value: ['fr', 'de'] }, ['file-a', 'file-c']],
    ['eq on a boolean', { key: 'draft', type: 'eq', value: false }, ['file-b', 'file-d']],
    // file-c has no `draft`: a missing key matches no comparison, `ne` included.
    ['ne on a key one file lacks', { key: 'draft', type: 'ne', value: true }, ['file-b', 'file-d']],
  ])('%s', async (_name, filter, expected) => {
    expect(await matching(filter)).toEqual(expected);
  });

  it('nested and/or', async () => {
    const filter: CompoundFilter = {
      type: 'or',
      filters: [
        {
          type: 'and',
          filters: [
            { key: 'lang', type: 'eq', value: 'en' },
            { key: 'year', type: 'gte', value: 2023 },
          ],
        },
        { type: 'and', filters: [{ key: 'lang', type: 'eq', value: 'de' }] },
      ],
    };
    expect(await matching(filter)).toEqual(['file-c', 'file-d']);
    expect(
      await matching({
        type: 'and',
        filters: [filter, { key: 'year', type: 'lt', value: 2024 }],
      }),
    ).toEqual(['file-c']);
  });

  it('bad filters are 400s naming the field; nesting past the budget is refused', async () => {
    const bad = async (filters: unknown): Promise<{ status: number; param: string } | 'accepted'> =>
      client.vectorStores
        .search(vsId, { query: 'x', filters: filters as ComparisonFilter })
        .then(() => 'accepted' as const)
        .catch((e: { status: number; param: string }) => ({ status: e.status, param: e.param }));
    expect(await bad({ key: 'y', type: 'like', value: 1 })).toEqual({ status: 400, param: 'filters.type' });
    expect(await bad({ key: 'y', type: 'in', value: 1 })).toEqual({ status: 400, param: 'filters.value' });
    expect(await bad({ type: 'and', filters: [{ key: 'y', type: 'eq', value: null }] })).toEqual({
      status: 400,
      param: 'filters.filters[0].value',
    });
    expect(await bad({ type: 'or', filters: [] })).toEqual({ status: 400, param: 'filters.filters' });
    let deep: unknown = { key: 'year', type: 'eq', value: 1 };
    for (let i = 0; i < MAX_FILTER_DEPTH + 1; i++) deep = { type: 'and', filters: [deep] };
    const refused = await bad(deep);
    expect(refused).toMatchObject({
      status: 400,
      param: expect.stringMatching(/^filters(\.filters\[0\])*$/),
    });
    let ok: unknown = { key: 'year', type: 'eq', value: 2021 };
    for (let i = 0; i < MAX_FILTER_DEPTH; i++) ok = { type: 'and', filters: [ok] };
    expect(await matching(ok as CompoundFilter)).toEqual(['file-a']);
  });
});
