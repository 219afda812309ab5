/**
 * What a store holds that a client could read back: responses, conversations and each
 * conversation's items, so "a refused request stores nothing" is checked across all three.
 */
import type { ResponseStore } from '../../src/store/types';

export interface StoreContents {
  responses: string[];
  conversations: string[];
  /** Item ids by conversation id, oldest first. */
  items: Record<string, string[]>;
}

/**
 * The ids of everything `store` holds (up to 1000 of each).
 *
 * @example
 * const before = await storeContents(store);
 * // … a refused request …
 * expect(await storeContents(store)).toEqual(before);
 */
export async function storeContents(store: ResponseStore): Promise<StoreContents> {
  const { responses, conversations } = await store.listRecent(1000);
  const items: Record<string, string[]> = {};
  for (const c of conversations) {
    const page = await store.listConversationItems(c.id, { limit: 1000, order: 'asc' });
    items[c.id] = page.data.map((item) => (item as { id?: string }).id ?? '');
  }
  return { responses: responses.map((r) => r.id), conversations: conversations.map((c) => c.id), items };
}

/**
 * A request body that also names `conversation` where it is a `/responses` create body (object or
 * JSON text of one), so a refusal is shown to append nothing to an existing conversation; other
 * paths and bodies are returned as they are.
 *
 * @example
 * inConversation('/responses', { model: 'scripted', input: 'x' }, 'conv_1'); // { …, conversation: 'conv_1' }
 */
export function inConversation<T>(path: string, body: T, conversation: string): T {
  if (path !== '/responses') return body;
  if (typeof body === 'string')
    return (
      body.startsWith('{"model":') ? `{"conversation":${JSON.stringify(conversation)},${body.slice(1)}` : body
    ) as T;
  if (body && typeof body === 'object' && !Array.isArray(body) && 'model' in body)
    return { ...body, conversation } as T;
  return body;
}

/**
 * `rig` with a conversation of one item written through the API, and the store's contents after
 * it: what a refused request must leave exactly as it was.
 *
 * @example
 * const { call, store, ...seed } = await seedConversation(makeRig());
 * expect(await storeContents(store)).toEqual(seed.before);
 */
export async function seedConversation<
  Rig extends {
    call: (method: string, path: string, body?: unknown) => Promise<Response>;
    store: ResponseStore;
  },
>(rig: Rig): Promise<Rig & { conversation: string; before: StoreContents }> {
  const res = await rig.call('POST', '/conversations', { items: [{ role: 'user', content: 'seed' }] });
  const { id } = (await res.json()) as { id: string };
  const before = await storeContents(rig.store);
  if (before.items[id]?.length !== 1) throw new Error(`the seed conversation ${id} was not stored`);
  return { ...rig, conversation: id, before };
}
