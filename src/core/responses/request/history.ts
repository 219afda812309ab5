import type { ConversationItem } from 'openai/resources/conversations/items';
import type { ResponseItem } from 'openai/resources/responses/responses';
import { clip, invalidRequest, notFound } from '../../../common/api-error';
import type { ResponseStore } from '../../../store/types';

/**
 * What `previous_response_id` carries in: that response's items and its output, oldest first. An
 * unknown id (or one never stored) is OpenAI's 400 `previous_response_not_found`, on every route that
 * takes it (create, compact, input_tokens): the request is wrong, not a resource missing from the URL.
 *
 * @example
 * const history = await previousHistory(store, body.previous_response_id ?? null);
 */
export async function previousHistory(
  store: ResponseStore,
  previousId: string | null,
): Promise<ResponseItem[]> {
  if (!previousId) return [];
  const prev = await store.getResponse(previousId);
  if (!prev)
    throw invalidRequest(
      'previous_response_id',
      `Previous response with id '${clip(previousId)}' not found.`,
      'previous_response_not_found',
    );
  return [...prev.inputItems, ...(prev.response.output as ResponseItem[])];
}

/** Every item of a conversation, oldest first: the history a response on it continues. */
export async function conversationHistory(store: ResponseStore, id: string): Promise<ResponseItem[]> {
  if (!(await store.getConversation(id)))
    throw notFound(`Conversation with id '${clip(id)}' not found.`, 'conversation');
  const out: ConversationItem[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await store.listConversationItems(id, { limit: 100, order: 'asc', after });
    out.push(...page.data);
    if (!page.hasMore || page.data.length === 0) break;
    after = page.data.at(-1)?.id;
  }
  return out as unknown as ResponseItem[];
}
