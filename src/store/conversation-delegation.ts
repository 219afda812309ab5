import type { Conversation } from 'openai/resources/conversations/conversations';
import type { ConversationItem } from 'openai/resources/conversations/items';
import type { ListOptions, ListPage } from './types';

/** The conversation half of a store: MemoryConversations and IdbConversations both are one. */
export interface ConversationHalf {
  put(conversation: Conversation): Promise<void>;
  updateMetadata(id: string, metadata: Conversation['metadata']): Promise<Conversation | undefined>;
  get(id: string): Promise<Conversation | undefined>;
  delete(id: string): Promise<boolean>;
  append(conversationId: string, items: ConversationItem[]): Promise<void>;
  list(conversationId: string, opts: ListOptions): Promise<ListPage<ConversationItem>>;
  getItem(conversationId: string, itemId: string): Promise<ConversationItem | undefined>;
  deleteItem(conversationId: string, itemId: string): Promise<boolean>;
}

/**
 * The `ResponseStore` conversation methods, answered by a store's conversation half: written once
 * for MemoryStore and IdbStore alike.
 *
 * @example
 * class MyStore extends ConversationDelegation { protected readonly conversations = new MemoryConversations(limits); }
 */
export abstract class ConversationDelegation {
  protected abstract readonly conversations: ConversationHalf;

  putConversation(conv: Conversation): Promise<void> {
    return this.conversations.put(conv);
  }

  updateConversationMetadata(
    id: string,
    metadata: Conversation['metadata'],
  ): Promise<Conversation | undefined> {
    return this.conversations.updateMetadata(id, metadata);
  }

  getConversation(id: string): Promise<Conversation | undefined> {
    return this.conversations.get(id);
  }

  deleteConversation(id: string): Promise<boolean> {
    return this.conversations.delete(id);
  }

  appendConversationItems(conversationId: string, items: ConversationItem[]): Promise<void> {
    return this.conversations.append(conversationId, items);
  }

  listConversationItems(conversationId: string, opts: ListOptions): Promise<ListPage<ConversationItem>> {
    return this.conversations.list(conversationId, opts);
  }

  getConversationItem(conversationId: string, itemId: string): Promise<ConversationItem | undefined> {
    return this.conversations.getItem(conversationId, itemId);
  }

  deleteConversationItem(conversationId: string, itemId: string): Promise<boolean> {
    return this.conversations.deleteItem(conversationId, itemId);
  }
}
