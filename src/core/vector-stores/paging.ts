import { clip, invalidRequest } from '../../common/api-error';
import { listBody, parseListParams } from '../http/list-params';

/**
 * One page of a cursor list over objects that carry `created_at` and `id`: sorted by creation
 * (`order`, default `desc`), then id; `after` and `before` are ids of the list (else a 400 naming them).
 *
 * @example
 * return jsonResponse(pageOf(stores.map(toWire), url));
 */
export function pageOf<T extends { id: string; created_at: number }>(items: T[], url: URL) {
  const { limit, order, after } = parseListParams(url);
  const before = url.searchParams.get('before') ?? undefined;
  const sign = order === 'asc' ? 1 : -1;
  const sorted = [...items].sort(
    (a, b) => sign * (a.created_at - b.created_at) || sign * (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  let start = 0;
  let end = sorted.length;
  if (after !== undefined) start = cursor(sorted, after, 'after') + 1;
  if (before !== undefined) end = cursor(sorted, before, 'before');
  const window = sorted.slice(start, Math.max(start, end));
  const data = before !== undefined && after === undefined ? window.slice(-limit) : window.slice(0, limit);
  return listBody(data, data.length < window.length);
}

function cursor(items: { id: string }[], id: string, param: 'after' | 'before'): number {
  const at = items.findIndex((i) => i.id === id);
  if (at < 0)
    throw invalidRequest(
      param,
      `Invalid '${param}': no object with id '${clip(id)}' in this list.`,
      'invalid_value',
    );
  return at;
}
