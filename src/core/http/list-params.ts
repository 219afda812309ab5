import { clip, invalidRequest } from '../../common/api-error';

/** `limit`, `order` and `after` of OpenAI's cursor lists. */
export interface ListParams {
  limit: number;
  order: 'asc' | 'desc';
  after: string | undefined;
}

/**
 * Reads a cursor list's query: `limit` 1–100 (default 20), `order` `asc`|`desc` (default `desc`,
 * as OpenAI's lists), `after` an item id.
 *
 * @example
 * parseListParams(new URL('http://x/v1/conversations/c/items?limit=5')) // → { limit: 5, order: 'desc', after: undefined }
 */
export function parseListParams(url: URL): ListParams {
  const p = url.searchParams;
  const order = p.get('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') {
    throw invalidRequest(
      'order',
      `Invalid value: '${clip(order)}'. Supported values are: 'asc' and 'desc'.`,
      'invalid_value',
    );
  }
  return { limit: parseLimit(url), order, after: p.get('after') ?? undefined };
}

/** `limit` 1–100, default 20. */
export function parseLimit(url: URL): number {
  const raw = url.searchParams.get('limit');
  const limit = raw === null ? 20 : Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw invalidRequest(
      'limit',
      `Invalid 'limit': expected an integer between 1 and 100, but got '${clip(String(raw))}'.`,
      'invalid_value',
    );
  }
  return limit;
}

/** OpenAI's list envelope. */
export function listBody<T extends { id?: string | null }>(data: T[], hasMore: boolean) {
  return {
    object: 'list' as const,
    data,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
    has_more: hasMore,
  };
}
