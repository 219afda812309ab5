/**
 * The chat survives a reload (issue 46): the demo remembers the id of the last completed response
 * (localStorage, an id only) and, on the next load, shows that chain again from intab's store:
 * the response's `input_items` are the whole history its `previous_response_id` chain saw (the
 * user's messages and the earlier replies), and its own output is the last reply. The next turn
 * continues from it through `previous_response_id`, as before the reload. Stored text is model
 * output: it enters the page as text nodes only.
 */
import type OpenAI from 'openai';
import type { ResponseItem } from 'openai/resources/responses/responses';
import type { ChatView } from '../chat-view';

const KEY = 'intab-demo:last-response';
/** Bound on what a restore reads: pages of `input_items`, 100 items each. */
const MAX_PAGES = 5;

/** Remembers (or, with null, forgets) the response the chat continues from. */
export function rememberResponse(id: string | null): void {
  try {
    if (id) localStorage.setItem(KEY, id);
    else localStorage.removeItem(KEY);
  } catch {
    // Storage off (a private mode): the chat simply starts empty after a reload.
  }
}

/** The response the chat continued from before the reload, if any. */
export function rememberedResponse(): string | null {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null;
  }
}

/** The text of a message item's parts (input or output text; refusals shown as such). */
function textOf(item: ResponseItem): { role: string; text: string } | null {
  if (item.type !== 'message') return null;
  const parts = item.content as { type: string; text?: string; refusal?: string }[];
  const text = parts.map((p) => p.text ?? (p.refusal ? `(refused: ${p.refusal})` : '')).join('');
  return { role: item.role, text };
}

/**
 * Shows the chain that ends with response `id` in `view` (cleared first); resolves with whether
 * there was one to show. A response gone from the store (deleted, expired) resolves false.
 *
 * @example
 * if (await restoreChat(client, view, id)) session.continueFrom(id);
 */
export async function restoreChat(client: OpenAI, view: ChatView, id: string): Promise<boolean> {
  let response: OpenAI.Responses.Response;
  try {
    response = await client.responses.retrieve(id);
  } catch {
    return false;
  }
  const items: ResponseItem[] = [];
  let after: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const list = await client.responses.inputItems.list(id, {
      order: 'asc',
      limit: 100,
      ...(after ? { after } : {}),
    });
    items.push(...list.data);
    if (!list.has_more || list.data.length === 0) break;
    after = list.data[list.data.length - 1]?.id;
  }
  view.clear();
  for (const item of items) {
    const message = textOf(item);
    if (!message || !message.text) continue;
    if (message.role === 'user') view.addUser(message.text);
    else if (message.role === 'assistant') showReply(view, response.model, message.text);
  }
  showReply(view, response.model, response.output_text);
  view.addNotice('Restored from this browser’s store; the next message continues this chat.');
  return true;
}

function showReply(view: ChatView, model: string, text: string): void {
  const reply = view.startReply(model);
  reply.appendText(text);
  reply.finish();
}
