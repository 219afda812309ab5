import type { Conversation } from 'openai/resources/conversations/conversations';
import type { ConversationItem } from 'openai/resources/conversations/items';
import type { ResponseItem } from 'openai/resources/responses/responses';
import * as z from 'zod/mini';
import { clip, notFound } from '../../common/api-error';
import type { ResponseStore } from '../../store/types';
import { newId } from '../http/ids';
import { jsonResponse, readJsonObject } from '../http/json-body';
import { listBody, parseListParams } from '../http/list-params';
import { normalizeInput } from '../responses/request/input-items';
import { metadataSchema, parseOrThrow } from '../validation/params';

type Deps = { store: ResponseStore; now: () => number; maxBodyBytes: number };

const itemsSchema = z.array(z.unknown()).check(z.maxLength(20));
const createSchema = z.strictObject({ items: z.nullish(itemsSchema), metadata: z.nullish(metadataSchema) });
const updateSchema = z.strictObject({ metadata: z.nullable(metadataSchema) });
const addItemsSchema = z.strictObject({ items: itemsSchema });

function missing(id: string) {
  return notFound(`Conversation with id '${clip(id)}' not found.`);
}

async function mustGet(store: ResponseStore, id: string): Promise<Conversation> {
  const conv = await store.getConversation(id);
  if (!conv) throw missing(id);
  return conv;
}

/**
 * Validates raw items as `create` validates `input`, with ids, and resolves item references; errors
 * name `items[i]`, the field they came in.
 */
async function toItems(raw: unknown[], store: ResponseStore, request: Request): Promise<ConversationItem[]> {
  const items = await normalizeInput(raw, (id) => store.findItem(id) as Promise<ResponseItem | undefined>, {
    root: 'items',
    origin: new URL(request.url).origin,
  });
  return items as unknown as ConversationItem[];
}

/** `POST /v1/conversations` (optional `items` ≤ 20, `metadata`). */
export async function createConversation(request: Request, deps: Deps): Promise<Response> {
  const body = parseOrThrow(createSchema, await readJsonObject(request, deps.maxBodyBytes));
  const items = await toItems(body.items ?? [], deps.store, request);
  const conv: Conversation = {
    id: newId('conv'),
    object: 'conversation',
    created_at: Math.floor(deps.now() / 1000),
    metadata: body.metadata ?? {},
  };
  await deps.store.putConversation(conv);
  if (items.length > 0) await deps.store.appendConversationItems(conv.id, items);
  return jsonResponse(conv);
}

export async function getConversation(store: ResponseStore, id: string): Promise<Response> {
  return jsonResponse(await mustGet(store, id));
}

/** `POST /v1/conversations/{id}`: replaces the metadata. */
export async function updateConversation(request: Request, id: string, deps: Deps): Promise<Response> {
  const body = parseOrThrow(updateSchema, await readJsonObject(request, deps.maxBodyBytes));
  // One store call that checks and writes together: a delete racing this update stays a delete.
  const conv = await deps.store.updateConversationMetadata(id, body.metadata ?? {});
  if (!conv) throw missing(id);
  return jsonResponse(conv);
}

export async function deleteConversation(store: ResponseStore, id: string): Promise<Response> {
  if (!(await store.deleteConversation(id))) throw missing(id);
  return jsonResponse({ id, object: 'conversation.deleted', deleted: true });
}

/** `GET /v1/conversations/{id}/items`: cursor list, `desc` by default, as OpenAI's. */
export async function listItems(store: ResponseStore, id: string, url: URL): Promise<Response> {
  await mustGet(store, id);
  const page = await store.listConversationItems(id, parseListParams(url));
  return jsonResponse(listBody(page.data, page.hasMore));
}

/** `POST /v1/conversations/{id}/items` (≤ 20): answers with the added items. */
export async function addItems(request: Request, id: string, deps: Deps): Promise<Response> {
  const body = parseOrThrow(addItemsSchema, await readJsonObject(request, deps.maxBodyBytes));
  await mustGet(deps.store, id);
  const items = await toItems(body.items, deps.store, request);
  await deps.store.appendConversationItems(id, items);
  return jsonResponse(listBody(items, false));
}

export async function getItem(store: ResponseStore, id: string, itemId: string): Promise<Response> {
  await mustGet(store, id);
  const item = await store.getConversationItem(id, itemId);
  if (!item) throw notFound(`Item with id '${clip(itemId)}' not found.`);
  return jsonResponse(item);
}

/** `DELETE /v1/conversations/{id}/items/{item_id}`: answers with the conversation, as OpenAI does. */
export async function deleteItem(store: ResponseStore, id: string, itemId: string): Promise<Response> {
  const conv = await mustGet(store, id);
  if (!(await store.deleteConversationItem(id, itemId)))
    throw notFound(`Item with id '${clip(itemId)}' not found.`);
  return jsonResponse(conv);
}
